/* Sweeps RRF weights/k offline on SciFact and the dev QA set (embedded engine), to pick the
 * vector-leg weight for an embedder: node dist/bench-build/bench/search/fusion-sweep.js */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalHashingEmbedder } from '@docqa/llm';
import { EmbeddedSearchIndex, reciprocalRankFusion, SearchHit } from '@docqa/search';
import { loadDevCorpus, loadQa, loadSciFact, ndcgAt } from './corpus';

const SHARED = process.env.BENCH_SHARED ?? '/work/shared';
const embedder = new LocalHashingEmbedder();

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-sweep-'));
  const index = new EmbeddedSearchIndex({ dir, space: embedder });
  const sci = loadSciFact(path.join(SHARED, 'benchmarks/scifact'));
  const dev = await loadDevCorpus(path.join(SHARED, 'corpus/dev'));
  const qa = loadQa(path.join(SHARED, 'corpus/dev/qa.jsonl'));
  const rec = (
    c: { documentId: string; fileName: string; pageNumber: string; chunkIndex: number; text: string },
    ds: string,
  ) => ({
    ...c,
    accountId: 'a',
    docSetName: ds,
    sourceType: 'S3',
    sourceId: c.fileName,
    embedding: embedder.embed(c.text),
  });
  await index.upsert(
    sci.docs.map((d) =>
      rec({ documentId: d.id, fileName: d.id, pageNumber: '1', chunkIndex: 0, text: d.text }, 'sci'),
    ),
  );
  await index.upsert(dev.map((c) => rec(c, 'dev')));
  await index.optimize();
  const legs = async (ds: string, text: string) => {
    const base = {
      accountId: 'a',
      docSetNames: [ds],
      text,
      vector: embedder.embed(text),
      limit: 50,
      minimumSimilarityScore: 0,
    };
    return [
      await index.search({ ...base, mode: 'bm25' }),
      await index.search({ ...base, mode: 'vector' }),
    ] as [SearchHit[], SearchHit[]];
  };
  const sciLegs = await Promise.all(sci.queries.map((q) => legs('sci', q.text)));
  const qaLegs = await Promise.all(qa.map((q) => legs('dev', q.question)));
  for (const k of [20, 60]) {
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
            fuse(l).map((h) => h.chunk.documentId),
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
  await index.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
