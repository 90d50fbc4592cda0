import * as os from 'node:os';
import { loadConfig } from '@docqa/common';
import { ELASTICSEARCH_WINDOW, EMBEDDED_ENGINE_WINDOW, indexingWindow } from './indexing-window';

describe('indexingWindow (INDEXING_CONCURRENCY)', () => {
  const window = (env: Record<string, string>) => {
    const cfg = loadConfig({ NODE_ENV: 'test', DATA_DIR: os.tmpdir(), ...env });
    return indexingWindow(cfg.indexing, cfg.search);
  };

  it('defaults by search engine: 16 on the embedded engine, 64 with Elasticsearch', () => {
    expect(EMBEDDED_ENGINE_WINDOW).toBe(16);
    expect(ELASTICSEARCH_WINDOW).toBe(64);
    expect(window({})).toBe(16);
    expect(window({ ELASTICSEARCH_URL: 'http://127.0.0.1:9200' })).toBe(64);
  });

  it('takes INDEXING_CONCURRENCY when it is set, on either engine', () => {
    expect(window({ INDEXING_CONCURRENCY: '8' })).toBe(8);
    expect(window({ INDEXING_CONCURRENCY: '8', ELASTICSEARCH_URL: 'http://127.0.0.1:9200' })).toBe(8);
  });

  it('refuses a window that is not a positive integer', () => {
    expect(() => window({ INDEXING_CONCURRENCY: '0' })).toThrow(/INDEXING_CONCURRENCY/);
  });
});
