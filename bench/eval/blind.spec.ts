import { BLIND_QA_FILE, blindSources } from '../rag/blind-corpus';
import { loadQa } from '../rag/harness';
import * as path from 'node:path';

describe('the blind corpus', () => {
  const sources = blindSources();
  const qa = loadQa(path.dirname(BLIND_QA_FILE), BLIND_QA_FILE);

  it('pins every PDF to a package version and a sha256', () => {
    expect(sources.length).toBeGreaterThan(0);
    for (const s of sources) {
      expect(s.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(s.version).toMatch(/^\d/);
      expect(s.path.startsWith('/')).toBe(true);
      expect(s.gzip).toBe(s.path.endsWith('.gz'));
    }
    expect(new Set(sources.map((s) => s.file)).size).toBe(sources.length);
  });

  it('asks only about the documents it fetches, with unique ids and a page for every answerable item', () => {
    const files = new Set(sources.map((s) => s.file));
    expect(new Set(qa.map((i) => i.id)).size).toBe(qa.length);
    for (const item of qa) {
      if (item.kind === 'unanswerable') continue;
      expect(files.has(item.fileName!)).toBe(true);
      const pages = sources.find((s) => s.file === item.fileName)!.pages;
      expect(item.page).toBeGreaterThanOrEqual(1);
      expect(item.page).toBeLessThanOrEqual(pages);
      expect(item.answer.trim()).not.toBe('');
    }
  });
});
