/* Sweeps RRF weights/k offline on SciFact and the dev QA set (embedded engine), to pick the
 * vector-leg weight for an embedder (production chunker):
 *   node dist/bench-build/bench/search/fusion-sweep.js                 (MiniLM)
 *   BENCH_EMBEDDER=hashing node dist/bench-build/bench/search/fusion-sweep.js
 *   LOCAL_EMBEDDER_PRECISION=fp32 node dist/bench-build/bench/search/fusion-sweep.js (default: the product's `auto`) */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultLocalModelDir, Embedder, LocalHashingEmbedder, OnnxEmbedder } from '@docqa/llm';
import { EmbeddedSearchIndex, reciprocalRankFusion, SearchHit } from '@docqa/search';
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
  for (const k of [20, 60, 100]) {
    for (const w of [0, 0.2, 0.3, 0.4, 0.5, 0.7, 1]) {
      const fuse = (l: [SearchHit[], SearchHit[]]) =>
        reciprocalRankFusion([{ items: l[0] }, { items: l[1], weight: w }], (h) => h.chunk.id, { k }).map(
          (f) => f.item,
        );
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
        `k=${k} w=${w} scifact=${(nd / sci.queries.length).toFixed(4)} qa hit1=${(h1 / qa.length).toFixed(3)} hit5=${(h5 / qa.length).toFixed(3)}`,
      );
    }
  }
  // Convex combination of normalised scores (Bruch et al. 2023, "An analysis of fusion functions
  // for hybrid retrieval"): alpha * cosine + (1 - alpha) * BM25, each min-max normalised over its
  // leg's candidates (a candidate absent from a leg gets that leg's 0).
  const convex = (l: [SearchHit[], SearchHit[]], alpha: number): SearchHit[] => {
    const norm = (hits: SearchHit[]) => {
      const scores = hits.map((h) => h.score);
      const max = Math.max(...scores);
      const min = Math.min(...scores);
      return new Map(hits.map((h) => [h.chunk.id, max > min ? (h.score - min) / (max - min) : 1]));
    };
    const b = norm(l[0]);
    const v = norm(l[1]);
    const all = new Map([...l[0], ...l[1]].map((h) => [h.chunk.id, h]));
    return [...all.values()]
      .map((h) => ({ h, s: alpha * (v.get(h.chunk.id) ?? 0) + (1 - alpha) * (b.get(h.chunk.id) ?? 0) }))
      .sort((x, y) => y.s - x.s)
      .map((x) => x.h);
  };
  for (const alpha of [0.2, 0.3, 0.4, 0.5, 0.6, 0.7]) {
    let nd = 0;
    sciLegs.forEach(
      (l, i) =>
        (nd += ndcgAt(
          10,
          distinctDocuments(
            convex(l, alpha).map((h) => h.chunk.documentId),
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
      const ok = convex(l, alpha)
        .slice(0, 5)
        .map((h) => h.chunk.fileName === q.fileName && pages.has(h.chunk.pageNumber));
      if (ok[0]) h1++;
      if (ok.some(Boolean)) h5++;
    });
    console.log(
      `convex alpha=${alpha} scifact=${(nd / sci.queries.length).toFixed(4)} qa hit1=${(h1 / qa.length).toFixed(3)} hit5=${(h5 / qa.length).toFixed(3)}`,
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
