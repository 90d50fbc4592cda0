/* Tuning aid (not part of the eval): dumps each QA item's query and retrieval candidates to JSON. */
import '../rag/env';
import * as fs from 'node:fs';
import { EMBEDDER, Embedder, LocalRewriter } from '@docqa/llm';
import { evaluateKeywordRouting } from '@docqa/search';
import { searchIndexOf } from '../../test/support/seed';
import { Engine, loadQa, startHarness } from '../rag/harness';

async function main() {
  const h = await startHarness({
    engine: (process.env.EVAL_ENGINE ?? 'embedded') as Engine,
    indexing: 'direct',
  });
  try {
    const index = searchIndexOf(h.app);
    const embedder = h.app.api.app.get<Embedder>(EMBEDDER);
    const rewriter = new LocalRewriter();
    const out = [];
    for (const item of loadQa()) {
      const history = item.pastMessages ?? [];
      const routing = evaluateKeywordRouting(item.question, {
        hasHistory: history.length > 0,
        hasPromptContext: false,
      });
      const query = routing.skipsRewriter
        ? routing.query
        : (await rewriter.rewrite({ question: item.question, history })).query;
      const vector = await embedder.embedQuery(query);
      const base = {
        accountId: h.accountId,
        docSetNames: [h.docSetName],
        text: query,
        limit: 30,
        minimumSimilarityScore: 0,
      };
      const hybrid = await index.search({
        ...base,
        vector,
        fusion: { vectorWeight: embedder.recommendedVectorWeight },
      });
      const bm25 = await index.search({ ...base, mode: 'bm25' });
      const knn = await index.search({ ...base, vector, mode: 'vector' });
      const pick = (hs: typeof hybrid) =>
        hs.map((x) => ({
          file: x.chunk.fileName,
          page: Number(x.chunk.pageNumber),
          chunk: x.chunk.chunkIndex,
          score: x.score,
          text: x.chunk.text,
        }));
      out.push({ ...item, query, hybrid: pick(hybrid), bm25: pick(bm25), vector: pick(knn) });
    }
    fs.writeFileSync(process.env.DUMP ?? '/tmp/dump.json', JSON.stringify(out));
  } finally {
    await h.close();
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
