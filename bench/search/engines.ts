// The benchmark's search engines: a fresh index per run on Elasticsearch (its own server from
// test/infra unless BENCH_ELASTICSEARCH_URL names one) or on the embedded engine, removed after.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Embedder } from '@docqa/embeddings';
import { ElasticsearchSearchIndex, EmbeddedSearchIndex, SearchIndex } from '@docqa/search';
import { log, ROOT } from './settings';

export interface EngineHandle {
  index: SearchIndex;
  close(): Promise<void>;
}

export async function openEngine(name: string, space: Embedder, esUrl?: string): Promise<EngineHandle> {
  const s = { modelName: space.modelName, dimensions: space.dimensions };
  if (name === 'elasticsearch') {
    const prefix = `bench-${Date.now()}`;
    const index = new ElasticsearchSearchIndex({ url: esUrl!, prefix, space: s });
    return {
      index,
      close: async () => {
        const list = (await index.client.cat.indices({ index: `${prefix}*`, format: 'json' })) as Array<{
          index?: string;
        }>;
        for (const i of list) {
          if (i.index) await index.client.indices.delete({ index: i.index }, { requestTimeout: 120_000 });
        }
        await index.client.indices.deleteIndexTemplate({ name: index.indexName }).catch(() => undefined);
        await index.close();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-search-'));
  const index = new EmbeddedSearchIndex({ dir, space: s });
  return {
    index,
    close: async () => {
      await index.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Elasticsearch from test/infra when the engines include it and BENCH_ELASTICSEARCH_URL is unset. */
export async function startElasticsearch(
  engines: string[],
): Promise<{ es?: { url: string; stop(): Promise<void> }; esUrl?: string }> {
  let es: { url: string; stop(): Promise<void> } | undefined;
  let esUrl = process.env.BENCH_ELASTICSEARCH_URL;
  if (engines.includes('elasticsearch') && !esUrl) {
    log('starting Elasticsearch (test/infra/elasticsearch)');
    const infra = require(path.join(ROOT, 'test/infra/elasticsearch.js')) as {
      startElasticsearch(): Promise<{ url: string; stop(): Promise<void> }>;
    };
    es = await infra.startElasticsearch();
    esUrl = es.url;
  }
  return { es, esUrl };
}
