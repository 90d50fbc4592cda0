/* Measurement aid (not part of the eval): how close Elasticsearch's kNN leg comes to the exact
 * nearest neighbours, per corpus, for candidate settings given on the command line.
 *
 * Indexes the corpora as the eval does (direct, EVAL_EMBED_CACHE honoured), embeds each item's
 * question as a query, and compares the leg's hits (the graph's k on int8 vectors, scored again on
 * the stored floats as the adapter does) with the exact top k by float cosine over every chunk of
 * the docset. Prints, per setting: the mean recall of the exact top k, the share of items whose
 * top k matches exactly, and the median milliseconds per query.
 *
 *   npx tsc -p bench/rag/tsconfig.json && npx tsc-alias -p bench/rag/tsconfig.json
 *   EVAL_EMBED_CACHE=<file> node dist/rag-bench/bench/eval/knn-recall.js <corpora: dev,similar,blind> \
 *     <k: 96> <num_candidates: 192,10000> [<graph k as multiples of k: 1,2>]
 * (96 is the depth an ask's hybrid search asks of each leg: retrievalLimit 8, reranked from 24.)
 */
import '../rag/env';
import { EMBEDDER, Embedder } from '@docqa/llm';
import { cosine, ElasticsearchSearchIndex, storedAccountId } from '@docqa/search';
import { searchIndexOf } from '../../test/support/seed';
import { percentile } from '../../test/support/stats';
import { CORPORA, corpusQa, log, startHarness } from '../rag/harness';

type Doc = { embedding: number[] };

async function main() {
  const [corporaArg = 'dev', kArg = '96', candidatesArg = '192', oversampleArg = '1'] = process.argv.slice(2);
  const k = Number(kArg);
  const candidateSettings = candidatesArg.split(',').map(Number);
  const oversamples = oversampleArg.split(',').map(Number);
  const corpora = corporaArg.split(',').map((n) => CORPORA[n]);
  const h = await startHarness({
    engine: 'elasticsearch',
    indexing: 'direct',
    corpora,
    embeddingCache: process.env.EVAL_EMBED_CACHE,
  });
  try {
    const index = searchIndexOf(h.app) as ElasticsearchSearchIndex;
    const embedder = h.app.api.app.get<Embedder>(EMBEDDER);
    const es = index.client;
    const alias = (await index.stats()).indexName;
    await es.indices.refresh({ index: alias });
    const segments = await es.cat.segments({ index: alias, format: 'json' });
    log(`${segments.length} segments: ${segments.map((s) => s['docs.count']).join(',')} docs`);
    for (const corpus of corpora) {
      const filter = [
        { term: { accountId: storedAccountId(h.accountId) } },
        { terms: { docSetName: [corpus.docSetName] } },
      ];
      // Every chunk of the docset, with its float vector.
      const all: Array<{ id: string; v: number[] }> = [];
      const r = await es.search<Doc>({
        index: alias,
        size: 10_000,
        _source: ['embedding'],
        query: { bool: { filter } },
      });
      for (const x of r.hits.hits) all.push({ id: x._id as string, v: (x._source as Doc).embedding });
      if (all.length >= 10_000) throw new Error('docsets of 10,000 chunks or more are not handled');
      const items = corpusQa(corpus);
      log(`${corpus.name}: ${all.length} chunks, ${items.length} questions`);
      // Each question's vector and exact top k, once for every setting.
      const queries = [];
      for (const item of items) {
        const vector = await embedder.embedQuery(item.question);
        const exact = all
          .map((c) => ({ id: c.id, s: cosine(vector, c.v) }))
          .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1))
          .slice(0, k)
          .map((c) => c.id);
        queries.push({ vector, exact });
      }
      for (const cand of candidateSettings) {
        for (const over of oversamples) {
          const graphK = Math.min(k * over, cand);
          let recall = 0;
          let same = 0;
          const ms: number[] = [];
          for (const { vector, exact } of queries) {
            const t0 = Date.now();
            const r = await es.search<Doc>({
              index: alias,
              size: graphK,
              _source: ['embedding'],
              track_total_hits: false,
              knn: { field: 'embedding', query_vector: vector, k: graphK, num_candidates: cand, filter },
            });
            ms.push(Date.now() - t0);
            const got = r.hits.hits
              .map((x) => ({ id: x._id as string, s: cosine(vector, (x._source as Doc).embedding) }))
              .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1))
              .slice(0, k)
              .map((c) => c.id);
            const exactSet = new Set(exact);
            recall += got.filter((id) => exactSet.has(id)).length / exact.length;
            if (got.length === exact.length && got.every((id, i) => id === exact[i])) same++;
          }
          ms.sort((a, b) => a - b);
          const row = {
            corpus: corpus.name,
            chunks: all.length,
            k,
            numCandidates: cand,
            graphK,
            recall: +(recall / items.length).toFixed(4),
            sameTopK: `${same}/${items.length}`,
            p50Ms: percentile(ms, 50),
          };
          console.log(JSON.stringify(row));
        }
      }
    }
  } finally {
    await h.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
