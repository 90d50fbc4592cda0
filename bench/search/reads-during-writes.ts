// Searches on the embedded engine while it is written to without a pause, as during a bulk
// indexing run: 4 writers add documents in writes of 30 chunks, 150 ms apart, up to ROWS rows
// (default 8,000), into a fresh table, while one reader searches (hybrid, limit 8) every 250 ms.
// Prints the writers' wall time and the searches' p50 / p95 / max. ASK=0: writes only.
// Chunks are 180 random words of a fixed vocabulary (bench/search/vocabulary.txt: the distinct
// words of four letters or more of the former docs/decisions.md, in order of appearance), embedded
// by the hashing embedder, so the engine's work is the only variable.
//   node -r ./test/support/ts-register.js bench/search/reads-during-writes.ts
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalHashingEmbedder } from '@docqa/embeddings';
import { EmbeddedSearchIndex } from '@docqa/search';
import { percentile } from '../../test/support/stats';

const embedder = new LocalHashingEmbedder();
const space = { modelName: embedder.modelName, dimensions: embedder.dimensions };
const words = fs.readFileSync('bench/search/vocabulary.txt', 'utf8').split('\n').filter(Boolean);
let seed = 1;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const text = () => Array.from({ length: 180 }, () => words[Math.floor(rnd() * words.length)]).join(' ');
const rec = (doc: string, i: number) => {
  const t = text();
  return {
    accountId: 1,
    docSetName: 'ds',
    documentId: doc,
    fileName: `${doc}.pdf`,
    pageNumber: String(i + 1),
    sourceType: 'S3',
    sourceId: `b/${doc}`,
    chunkIndex: i,
    text: t,
    embedding: embedder.embed(t),
  };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
void (async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-reads-during-writes-'));
  const index = new EmbeddedSearchIndex({ dir, space });
  const TOTAL = Number(process.env.ROWS ?? 8000);
  let written = 0;
  let done = false;
  const t0 = Date.now();
  // 4 documents at a time, each written in batches of 30 rows, 150 ms apart
  const writer = async (w: number) => {
    for (let d = w; written < TOTAL; d += 4) {
      for (let b = 0; b < 5 && written < TOTAL; b++) {
        await index.upsert(Array.from({ length: 30 }, (_, i) => rec(`d${d}`, b * 30 + i)));
        written += 30;
        await sleep(150);
      }
    }
  };
  const ms: number[] = [];
  const asker = async () => {
    let k = 0;
    while (!done) {
      const q = `${words[(k * 7) % words.length]} ${words[(k * 13) % words.length]} engine`;
      const s = Date.now();
      await index.search({
        accountId: 1,
        docSetNames: ['ds'],
        text: q,
        vector: embedder.embed(q),
        limit: 8,
        minimumSimilarityScore: 0,
      });
      ms.push(Date.now() - s);
      k++;
      await sleep(250);
    }
  };
  const a = process.env.ASK === '0' ? Promise.resolve() : asker();
  await Promise.all([0, 1, 2, 3].map(writer));
  const writeSeconds = (Date.now() - t0) / 1000;
  done = true;
  await a;
  ms.sort((x, y) => x - y);
  console.log(
    JSON.stringify({
      rows: written,
      writeSeconds,
      searches: ms.length,
      p50: percentile(ms, 50),
      p95: percentile(ms, 95),
      max: ms[ms.length - 1],
    }),
  );
  await index.close();
  fs.rmSync(dir, { recursive: true, force: true });
})();
