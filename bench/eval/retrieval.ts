/* Tuning aid (not part of `npm run eval`): retrieval metrics of search/rerank variants on both
 * corpora, without answering. The corpora are seeded once (direct); every variant then runs the
 * query building of /ask (keyword routing, local rewriter), the search and the local reranker.
 *   node dist/rag-bench/bench/eval/retrieval.js            (after `npm run eval` compiled it)
 * VARIANTS='[{"name":"x","search":{...SearchQuery fields},"rerank":"none|text|context"}]'
 * EVAL_ENGINE=elasticsearch for the other engine. Prints a table per corpus and half. */
import '../rag/env';
import { EMBEDDER, Embedder, LocalReranker, LocalRewriter } from '@docqa/llm';
import { evaluateKeywordRouting, SearchHit, SearchQuery } from '@docqa/search';
import { searchIndexOf } from '../../test/support/seed';
import { CORPORA, corpusQa, Engine, startHarness } from '../rag/harness';
import { goldSources, isHeldOut, itemClass } from './scoring';

interface Variant {
  name: string;
  search?: Partial<SearchQuery>;
  /** none: the search order; text: local reranker on chunk text (before); context: with context. */
  rerank?: 'none' | 'text' | 'context' | 'terms';
  /** The reranker's weight of the search order (LocalReranker searchOrderWeight; default 0 here). */
  keepSearchOrder?: number;
  /** Candidates fetched for the reranker (default 24) and kept (default 8). */
  depth?: number;
  keep?: number;
}

export function rerankText(c: SearchHit['chunk'], withTerms = false): string {
  const head = [c.documentTitle, c.section, withTerms ? c.documentTerms : ''].filter(Boolean).join(' | ');
  return head ? `${head}\n${c.text}` : c.text;
}

interface Row {
  heldOut: boolean;
  multi: boolean;
  file5: boolean;
  page5: boolean;
  page1: boolean;
  page8: boolean;
  all8: boolean;
  all5: boolean;
}

async function main() {
  const variants: Variant[] = JSON.parse(
    process.env.VARIANTS ??
      '[{"name":"search only","rerank":"none"},{"name":"rerank text","rerank":"text"},{"name":"rerank context","rerank":"context"}]',
  );
  const corpora = (process.env.EVAL_CORPUS ?? 'dev,similar').split(',').map((n) => CORPORA[n]);
  const h = await startHarness({
    engine: (process.env.EVAL_ENGINE ?? 'embedded') as Engine,
    indexing: 'direct',
    corpora,
  });
  try {
    const index = searchIndexOf(h.app);
    const embedder = h.app.api.app.get<Embedder>(EMBEDDER);
    const rewriter = new LocalRewriter();
    for (const corpus of corpora) {
      const items = corpusQa(corpus).filter((i) => itemClass(i) !== 'unanswerable');
      const queries = await Promise.all(
        items.map(async (item) => {
          const history = item.pastMessages ?? [];
          const routing = evaluateKeywordRouting(item.question, {
            hasHistory: history.length > 0,
            hasPromptContext: false,
          });
          const query = routing.skipsRewriter
            ? routing.query
            : (await rewriter.rewrite({ question: item.question, history })).query;
          return { item, query, vector: await embedder.embedQuery(query) };
        }),
      );
      console.log(`\n${corpus.name} (${h.engine}, ${embedder.modelName})`);
      console.log('variant | half | single file@5 | page@5 | page@1 | page@8 | multi all@8 | multi all@5');
      for (const v of variants) {
        const rows: Row[] = [];
        for (const { item, query, vector } of queries) {
          const depth = v.rerank === 'none' ? (v.keep ?? 8) : (v.depth ?? 24);
          let hits = await index.search({
            accountId: h.accountId,
            docSetNames: [corpus.docSetName],
            text: query,
            vector,
            limit: depth,
            minimumSimilarityScore: 0,
            fusion: { vectorWeight: embedder.recommendedVectorWeight },
            ...(v.search ?? {}),
          });
          if (v.rerank !== 'none') {
            // the product's reranker, fusing the search order in with this variant's weight
            const r = await new LocalReranker({ searchOrderWeight: v.keepSearchOrder ?? 0 }).rerank({
              query,
              documents: hits.map((x) =>
                v.rerank === 'text' ? x.chunk.text : rerankText(x.chunk, v.rerank === 'terms'),
              ),
              topN: v.keep ?? 8,
            });
            hits = r.results.map((x) => hits[x.index]);
          }
          const gold = goldSources(item);
          const top = (n: number) => hits.slice(0, n);
          const onPage = (n: number, g: (typeof gold)[0]) =>
            top(n).some((x) => x.chunk.fileName === g.fileName && g.pages.has(Number(x.chunk.pageNumber)));
          const inFile = (n: number, g: (typeof gold)[0]) =>
            top(n).some((x) => x.chunk.fileName === g.fileName);
          rows.push({
            heldOut: isHeldOut(item.id),
            multi: itemClass(item) === 'multi',
            file5: inFile(5, gold[0]),
            page5: onPage(5, gold[0]),
            page1: onPage(1, gold[0]),
            page8: onPage(8, gold[0]),
            all8: gold.every((g) => inFile(8, g)),
            all5: gold.every((g) => inFile(5, g)),
          });
        }
        for (const half of ['tune', 'held-out']) {
          const rs = rows.filter((r) => r.heldOut === (half === 'held-out'));
          const single = rs.filter((r) => !r.multi);
          const multi = rs.filter((r) => r.multi);
          const share = (xs: Row[], f: (r: Row) => boolean) =>
            xs.length ? (xs.filter(f).length / xs.length).toFixed(2) : '-';
          console.log(
            `${v.name} | ${half} | ${share(single, (r) => r.file5)} | ${share(single, (r) => r.page5)} | ${share(single, (r) => r.page1)} | ${share(single, (r) => r.page8)} | ${share(multi, (r) => r.all8)} | ${share(multi, (r) => r.all5)}`,
          );
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
