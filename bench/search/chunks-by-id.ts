/* The read /ask adds to complete cut-off sentences (SearchIndex.chunksAndTerms of up to 8 ids) against one
 * hybrid search, on the embedded engine at a given table size (not part of npm test). Synthetic chunks of
 * 40-chunk documents in 5 accounts, random unit vectors of MiniLM's width; 30 searches and 30 reads per
 * round, p50 / p95 printed per round (docs/benchmarks/ask.md, "Completing cut-off sentences").
 *   node -r ./test/support/ts-register.js bench/search/chunks-by-id.ts [chunks, default 100000] */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChunkRecord, EmbeddedSearchIndex } from '@docqa/search';
import { percentile } from '../../test/support/stats';
const N = Number(process.argv[2] ?? 100_000);
const dims = 384;
const words =
  'margin page table rule package option value default command file report aircraft engine pilot runway weather damage landing inspection fuel'.split(
    ' ',
  );
function rnd(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}
void (async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chunks-by-id-'));
  const index = new EmbeddedSearchIndex({ dir, space: { modelName: 'synthetic', dimensions: dims } });
  const r = rnd(7);
  const vec = () => {
    const v = Array.from({ length: dims }, () => r() - 0.5);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const t0 = Date.now();
  for (let b = 0; b < N; b += 2000) {
    const batch: ChunkRecord[] = [];
    for (let i = b; i < Math.min(N, b + 2000); i++) {
      const doc = Math.floor(i / 40);
      batch.push({
        accountId: 1 + (doc % 5),
        docSetName: 'big',
        documentId: `doc-${doc}`,
        fileName: `f${doc}.pdf`,
        pageNumber: String(1 + (i % 40)),
        sourceType: 'S3',
        sourceId: `k${doc}`,
        chunkIndex: i % 40,
        text: Array.from({ length: 150 }, () => words[Math.floor(r() * words.length)]).join(' '),
        embedding: vec(),
      });
    }
    await index.upsert(batch);
  }
  await index.settle();
  console.log(`indexed ${N} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const times = (xs: number[]) => {
    xs.sort((a, b) => a - b);
    return `p50 ${percentile(xs, 50).toFixed(1)} ms, p95 ${percentile(xs, 95).toFixed(1)} ms`;
  };
  for (let round = 0; round < 2; round++) {
    const s: number[] = [],
      c: number[] = [];
    for (let q = 0; q < 30; q++) {
      const acct = 1 + (q % 5);
      let t = performance.now();
      const hits = await index.search({
        accountId: acct,
        docSetNames: ['big'],
        text: `${words[q % 20]} ${words[(q * 7) % 20]} landing`,
        vector: vec(),
        limit: 24,
        minimumSimilarityScore: 0,
      });
      s.push(performance.now() - t);
      const ids = hits.slice(0, 8).map((h) => `${h.chunk.documentId}:${h.chunk.chunkIndex + 1}`);
      t = performance.now();
      const got = (await index.chunksAndTerms({ accountId: acct, docSetNames: ['big'], ids, terms: [] }))
        .chunks;
      c.push(performance.now() - t);
      if (got.length === 0 && ids.length) console.log('none found?', ids);
    }
    console.log(`round ${round}: search ${times(s)}; chunksById(8) ${times(c)}`);
  }
  await index.close();
  fs.rmSync(dir, { recursive: true, force: true });
})();
