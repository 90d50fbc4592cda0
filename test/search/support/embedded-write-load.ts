// Child-process workload of the embedded engine (run by test/search/embedded-engine-stall.e2e-spec.ts
// with `node -r test/support/ts-register.js`): the write pattern of indexing (384-chunk upserts, the
// pipeline's batch, a document deleted and written again now and then), index maintenance after
// every few writes as the adapter schedules it when writes go idle, and a hybrid search after every
// write. Each call must answer within CALL_DEADLINE_MS; the script prints one JSON line per round
// and exits 0 when every round finished, 2 when a call did not answer (the engine wedged).
// LOAD_PRODUCT_SPACE=1 writes into the table of the embedder the configuration selects (the table
// the product opens in that data directory), under account 999999 (no account of the test's); LOAD_FINAL_OPTIMIZE=0 leaves
// the last rounds' rows to the next maintenance.
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '@docqa/common';
import { createEmbedder } from '@docqa/embeddings';
import { EmbeddedSearchIndex } from '@docqa/search/embedded.adapter';
import type { ChunkRecord } from '@docqa/search';

const dir = process.argv[2] ?? path.join(os.tmpdir(), `docqa-load-${process.pid}`);
const ROUNDS = Number(process.env.LOAD_ROUNDS ?? 30);
const CALL_DEADLINE_MS = Number(process.env.LOAD_CALL_DEADLINE_MS ?? 60_000);
const FINAL_OPTIMIZE = process.env.LOAD_FINAL_OPTIMIZE !== '0';
const PRODUCT_SPACE = process.env.LOAD_PRODUCT_SPACE === '1';
const ACCOUNT = PRODUCT_SPACE ? 999_999 : 1;
let SPACE = { modelName: 'load', dimensions: 64 };
const BATCH = 384;

// Seeded generator: the same text every run, so the data size where a stall appears is reproducible.
let seed = 0x2545f491;
function random(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x1_0000_0000;
}
const VOCABULARY = Array.from(
  { length: 20_000 },
  (_, i) => `w${i.toString(36)}${['ing', 'ed', 's', ''][i % 4]}`,
);
const text = (words: number) =>
  Array.from({ length: words }, () => VOCABULARY[Math.floor(random() ** 2 * VOCABULARY.length)]).join(' ');
const vector = () => Array.from({ length: SPACE.dimensions }, () => random() - 0.5);

function chunks(documentId: string): ChunkRecord[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    accountId: ACCOUNT,
    docSetName: 'load',
    documentId,
    fileName: `${documentId}.pdf`,
    pageNumber: String(1 + Math.floor(i / 3)),
    sourceType: 'S3',
    sourceId: `s3://load/${documentId}.pdf`,
    chunkIndex: i,
    text: text(180),
    embedding: vector(),
  }));
}

async function within<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what} did not answer within ${CALL_DEADLINE_MS} ms`)),
          CALL_DEADLINE_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function main(): Promise<void> {
  if (PRODUCT_SPACE) {
    const embedder = await createEmbedder(loadConfig());
    SPACE = { modelName: embedder.modelName, dimensions: embedder.dimensions };
    await embedder.close?.();
  }
  const index = new EmbeddedSearchIndex({ dir, space: SPACE, optimizeDelayMs: 60_000 });
  for (let round = 0; round < ROUNDS; round++) {
    const t0 = Date.now();
    const documentId = round % 7 === 6 ? `doc-${round - 3}` : `doc-${round}`;
    if (round % 7 === 6) await within(`delete (round ${round})`, index.deleteByDocument(ACCOUNT, documentId));
    await within(`upsert (round ${round})`, index.upsert(chunks(documentId)));
    const hits = await within(
      `search (round ${round})`,
      index.search({
        accountId: ACCOUNT,
        docSetNames: ['load'],
        text: text(3),
        vector: vector(),
        limit: 5,
        minimumSimilarityScore: -1,
      }),
    );
    if (round % 5 === 4 && (FINAL_OPTIMIZE || round < ROUNDS - 1))
      await within(`optimize (round ${round})`, index.optimize());
    const { chunks: rows } = await within('count', index.stats());
    console.log(JSON.stringify({ round, rows, hits: hits.length, ms: Date.now() - t0 }));
  }
  // A seed leaves its last rows to the next maintenance: exit without the one close() would run.
  if (FINAL_OPTIMIZE) await within('close', index.close());
  console.log(JSON.stringify({ done: true }));
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.log(JSON.stringify({ stalled: err.message }));
    process.exit(2);
  },
);
