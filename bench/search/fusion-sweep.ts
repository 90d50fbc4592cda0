/* Sweeps RRF weights/k and the convex combination's vector share offline on SciFact and the dev
 * QA set (embedded engine), to pick the vector-leg weight for an embedder (production chunker):
 *   node dist/bench-build/bench/search/fusion-sweep.js                 (MiniLM)
 *   BENCH_EMBEDDER=hashing node dist/bench-build/bench/search/fusion-sweep.js
 *   LOCAL_EMBEDDER_PRECISION=fp32 node dist/bench-build/bench/search/fusion-sweep.js (default: the product's `auto`) */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultLocalModelDir, Embedder, LocalHashingEmbedder, OnnxEmbedder } from '@docqa/llm';
import { convexFusion, EmbeddedSearchIndex, reciprocalRankFusion, SearchHit } from '@docqa/search';
import {
  distinctDocuments,
  EMBEDDER_PRECISION,
  embedCached,
  queryEmbedder,
  loadDevCorpus,
  loadQa,
  loadSciFact,
  ndcgAt,
  RawChunk,
  sciFactChunks,
} from './corpus';

const SHARED = process.env.BENCH_SHARED ?? path.resolve(__dirname, '../../../../../shared');

async function main() {
  const embedder: Embedder =
    process.env.BENCH_EMBEDDER === 'hashing'
      ? new LocalHashingEmbedder()
      : await OnnxEmbedder.load({
          dir: process.env.LOCAL_EMBEDDER_MODEL_DIR ?? defaultLocalModelDir(),
          precision: EMBEDDER_PRECISION,
        });
  console.log(`embedder ${embedder.modelName}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-sweep-'));
  const index = new EmbeddedSearchIndex({ dir, space: embedder });
  const sci = loadSciFact(path.join(SHARED, 'benchmarks/scifact'));
  const dev = await loadDevCorpus(path.join(SHARED, 'corpus/dev'));
  const qa = loadQa(path.join(SHARED, 'corpus/dev/qa.jsonl'));
  const recs = async (chunks: RawChunk[], ds: string) => {
    const vectors = await embedCached(
      embedder,
      chunks.map((c) => c.embeddingText ?? c.text),
    );
    return chunks.map(({ embeddingText: _embedded, ...c }, i) => ({
      ...c,
      accountId: 1,
      docSetName: ds,
      sourceType: 'S3',
      sourceId: c.fileName,
      embedding: vectors[i],
    }));
  };
  await index.upsert(await recs(sciFactChunks(sci), 'sci'));
  await index.upsert(await recs(dev, 'dev'));
  await index.optimize();
  const legs = async (ds: string, text: string, vector: number[]) => {
    const base = { accountId: 1, docSetNames: [ds], text, vector, limit: 50, minimumSimilarityScore: 0 };
    return [
      await index.search({ ...base, mode: 'bm25' }),
      await index.search({ ...base, mode: 'vector' }),
    ] as [SearchHit[], SearchHit[]];
  };
  const qe = queryEmbedder(embedder);
  const sciVectors = await embedCached(
    qe,
    sci.queries.map((q) => q.text),
  );
  const qaVectors = await embedCached(
    qe,
    qa.map((q) => q.question),
  );
  // one query at a time: the engines' read deadlines are for a service, not a 600-query burst
  const sciLegs: Array<[SearchHit[], SearchHit[]]> = [];
  for (const [i, q] of sci.queries.entries()) sciLegs.push(await legs('sci', q.text, sciVectors[i]));
  const qaLegs: Array<[SearchHit[], SearchHit[]]> = [];
  for (const [i, q] of qa.entries()) qaLegs.push(await legs('dev', q.question, qaVectors[i]));
  type Legs = [SearchHit[], SearchHit[]];
  /** SciFact nDCG@10 and dev QA hit@1/hit@5 of one fusion of the legs, printed after `label`. */
  const report = (label: string, fuse: (l: Legs) => SearchHit[]) => {
    let nd = 0;
    sciLegs.forEach(
      (l, i) =>
        (nd += ndcgAt(
          10,
          distinctDocuments(
            fuse(l).map((h) => h.chunk.documentId),
            10,
          ),
          sci.qrels.get(sci.queries[i].id)!,
        )),
    );
    let h1 = 0;
    let h5 = 0;
    qaLegs.forEach((l, i) => {
      const q = qa[i];
      const pages = new Set([q.page, ...(q.alsoOnPages ?? [])].map(String));
      const ok = fuse(l)
        .slice(0, 5)
        .map((h) => h.chunk.fileName === q.fileName && pages.has(h.chunk.pageNumber));
      if (ok[0]) h1++;
      if (ok.some(Boolean)) h5++;
    });
    console.log(
      `${label} scifact=${(nd / sci.queries.length).toFixed(4)} qa hit1=${(h1 / qa.length).toFixed(3)} hit5=${(h5 / qa.length).toFixed(3)}`,
    );
  };
  const asScored = (hits: SearchHit[]) => hits.map((h) => ({ item: h, score: h.score }));
  for (const k of [20, 60, 100]) {
    for (const w of [0, 0.2, 0.3, 0.4, 0.5, 0.7, 1]) {
      report(`k=${k} w=${w}`, (l) =>
        reciprocalRankFusion([{ items: l[0] }, { items: l[1], weight: w }], (h) => h.chunk.id, { k }).map(
          (f) => f.item,
        ),
      );
    }
  }
  // The product's convex combination (convexFusion) with the vector leg's share alpha: alpha 0.5 is
  // the default vector weight 1.
  for (const alpha of [0.2, 0.3, 0.4, 0.5, 0.6, 0.7]) {
    report(`convex alpha=${alpha}`, (l) =>
      convexFusion(
        [
          { lists: [asScored(l[0])], weight: 1 - alpha },
          { lists: [asScored(l[1])], weight: alpha },
        ],
        (h) => h.chunk.id,
      ).map((f) => f.item),
    );
  }
  await index.close();
  await embedder.close?.();
  fs.rmSync(dir, { recursive: true, force: true });
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
