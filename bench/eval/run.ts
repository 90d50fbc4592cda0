/* Answer-quality evaluation on the dev corpus (shared/corpus/dev, 16 PDFs, 77 QA items).
 *   npm run eval                                   (indexing pipeline, embedded search engine)
 *   npm run eval -- --provider local-llm           (answers by the local GGUF model, LLM_MODEL_PATH)
 *   npm run eval -- --provider openai              (answers by OPENAI_BASE_URL / OPENAI_MODEL)
 *   npm run eval -- --only dev-001,dev-002         (a subset; never writes docs)
 *   EVAL_ENGINE=elasticsearch npm run eval         (the test Elasticsearch instead)
 *   EVAL_INDEXING=direct npm run eval              (seed through the SearchIndex port: no Temporal/S3)
 *   EVAL_WRITE=0 npm run eval                      (print only; do not rewrite docs/evaluation.md)
 * Every QA item goes through POST /ask as Server-Sent Events (time to the first delta and to done)
 * with its pastMessages, answered by the provider named with --provider (default extractive).
 * Generative answers are cached per question (dist/rag-bench/eval-cache), so a stopped run resumes
 * where it was and an unchanged rerun is free; timings are those of the run that generated them.
 * Metrics:
 *   hit@5      the gold file and page (or an alsoOnPages page) among the first 5 retrieved chunks
 *   citation precision   cited pages whose text contains the answer phrase / all citations
 *   answer contains phrase   the answer text contains the answer phrase (verify_qa.sh normalisation)
 *   unanswerable, no citation   unanswerable items answered with no citation
 * Writes docs/benchmarks/eval-dev-<provider>.json (the provider comparison in docs/evaluation.md is
 * rebuilt from those files), docs/evaluation.md (the extractive run writes all of it, the others
 * only the comparison) and dist/rag-bench/eval-results-<provider>.json. */
import '../rag/env';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  GENERATOR,
  Generator,
  LocalGenerator,
  Passage,
  RERANKER,
  Reranker,
  REWRITER,
  Rewriter,
} from '@docqa/llm';
import type { SearchHit, SearchIndex, SearchQuery } from '@docqa/search';
import { DevQaItem, pgOf, searchIndexOf } from '../../test/support/seed';
import { postSse } from '../../test/support/sse';
import { AnswerCache, codeHash } from './answer-cache';
import { parseEvalArgs, providerEnv, renderProviderComparison, writeProviderMetrics } from './providers';
import {
  answerVariants,
  Engine,
  Indexing,
  loadQa,
  log,
  normalisedPhrase,
  pageVariants,
  percentile,
  ROOT,
  startHarness,
} from '../rag/harness';

const ENGINE = (process.env.EVAL_ENGINE ?? 'embedded') as Engine;
const INDEXING = (process.env.EVAL_INDEXING ?? 'pipeline') as Indexing;
const ARGS = parseEvalArgs(process.argv.slice(2));
const PROVIDER = ARGS.provider;
// A subset never rewrites the docs.
const WRITE = process.env.EVAL_WRITE !== '0' && !ARGS.only;

interface ItemResult {
  id: string;
  kind: string;
  question: string;
  multiTurn: boolean;
  query: string;
  hit5?: boolean;
  answerHasPhrase?: boolean;
  citations: Array<{ fileName: string; pageNumber: string; correct?: boolean }>;
  anyCorrectCitation?: boolean;
  noCitation?: boolean;
  answer: string;
  top: string[];
  ms: number;
  /** ms to the first `delta` event (undefined when none came). */
  ttftMs?: number;
  /** The answer came from the eval cache: the timings are those of the run that generated it. */
  cached?: boolean;
  /** Error code when the answer failed (an `error` event or a non-200 status). */
  error?: string;
}

const pct = (n: number, d: number) => (d ? n / d : NaN);
const MARGINS = [1.0, 1.1, 1.2, 1.3, 1.4, 1.6, 2.0];
/** LOCAL_ANSWER_MIN_MARGIN's default (libs/llm LocalGenerator); the eval checks it against the half-A choice. */
const DEFAULT_MARGIN = new LocalGenerator().minMargin;
/** The citation precision the margin is chosen for (on half A). */
const PRECISION_TARGET = 0.8;

/** Items are split by the parity of their number: A (odd) tunes thresholds, B (even) reports them. */
export function halfOf(id: string): 'A' | 'B' {
  return Number(/(\d+)$/.exec(id)?.[1] ?? 0) % 2 === 1 ? 'A' : 'B';
}

interface MarginPoint {
  minMargin: number;
  all: { precision: number; answered: number };
  A: { precision: number; answered: number };
  B: { precision: number; answered: number };
}

/** The margin chosen on half A: the most answered with precision >= target, else the most precise. */
export function chooseMargin(curve: MarginPoint[]): MarginPoint {
  const ok = curve.filter((c) => c.A.precision >= PRECISION_TARGET);
  if (ok.length) return ok.reduce((b, c) => (c.A.answered > b.A.answered ? c : b));
  return curve.reduce((b, c) => (c.A.precision > b.A.precision ? c : b));
}

interface Replay {
  item: DevQaItem;
  query: string;
  passages: Passage[];
}
const sortedDefined = (xs: Array<number | undefined>) =>
  xs.filter((x): x is number => typeof x === 'number').sort((a, b) => a - b);
const f2 = (x: number) => (Number.isNaN(x) ? 'n/a' : x.toFixed(2));

async function main() {
  const h = await startHarness({ engine: ENGINE, indexing: INDEXING, env: providerEnv(PROVIDER) });
  try {
    const generator = h.app.api.app.get<Generator>(GENERATOR);
    if (generator.provider !== (PROVIDER === 'extractive' ? 'local' : PROVIDER)) {
      throw new Error(`--provider ${PROVIDER} but the app answers with ${generator.provider}`);
    }
    let cache: AnswerCache | undefined;
    if (PROVIDER !== 'extractive') {
      const model = generator.defaultModel === 'local-llm' ? h.app.cfg.llmModelPath : generator.defaultModel;
      const scope = {
        provider: PROVIDER,
        model: PROVIDER === 'local-llm' ? `${path.basename(model)}:${fs.statSync(model).size}` : model,
        budget: h.app.cfg.promptTokenBudget,
        maxTokens: h.app.cfg.llmMaxAnswerTokens,
        code: codeHash(
          ['grounded', 'llama', 'openai'].map((d) =>
            path.join(ROOT, 'dist/rag-bench/libs/llm/src/generation', d),
          ),
        ),
      };
      cache = new AnswerCache(path.join(ROOT, `dist/rag-bench/eval-cache/dev-${PROVIDER}.jsonl`), scope);
      cache.wrapGenerator(generator);
      cache.wrapRewriter(h.app.api.app.get<Rewriter>(REWRITER));
      log(`answer cache: ${cache.size} entries (${JSON.stringify(scope)})`);
    }
    const index: SearchIndex = searchIndexOf(h.app);
    const original = index.search.bind(index);
    const seen: { last?: { query: SearchQuery; hits: SearchHit[] } } = {};
    index.search = async (q: SearchQuery) => {
      const hits = await original(q);
      seen.last ??= { query: q, hits };
      return hits;
    };
    // Retrieved = what the answerer gets: the search hits in the reranker's order when there is one.
    const reranker = h.app.api.app.get<Reranker | null>(RERANKER);
    if (reranker) {
      const rerank = reranker.rerank.bind(reranker);
      reranker.rerank = async (input) => {
        const r = await rerank(input);
        if (seen.last) seen.last = { ...seen.last, hits: r.results.map((x) => seen.last!.hits[x.index]) };
        return r;
      };
    }

    const db = await pgOf(h.app);
    const pages = new Map<string, string[]>();
    const { rows } = await db.query(
      `SELECT d.file_name, p.page_number, p.text FROM document_pages p JOIN documents d ON d.id = p.document_id
        WHERE d.account_id = $1`,
      [h.accountId],
    );
    for (const r of rows) pages.set(`${r.file_name}#${r.page_number}`, pageVariants(r.text));
    await db.end();
    const onPage = (file: string, page: string | number, phrase: string) =>
      (pages.get(`${file}#${page}`) ?? []).some((v) => v.includes(normalisedPhrase(phrase)));

    const results: ItemResult[] = [];
    const replays: Replay[] = [];
    const items = loadQa().filter((i) => !ARGS.only || ARGS.only.includes(i.id));
    for (const [k, item] of items.entries()) {
      delete seen.last;
      if (cache) cache.current = { hit: false };
      const r0 = await postSse(
        h.app,
        '/api/v1/document_proxy/ask',
        {
          question: item.question,
          docSetNames: [h.docSetName],
          ...(item.pastMessages ? { pastMessages: item.pastMessages } : {}),
          stream: true,
        },
        { token: h.token, timeoutMs: 30 * 60_000 },
      );
      if (r0.status !== 200) throw new Error(`${item.id}: ${r0.status} ${r0.text}`);
      const done = r0.events.find((e) => e.event === 'done');
      const failed = r0.events.find((e) => e.event === 'error');
      let ttftMs = r0.events.find((e) => e.event === 'delta')?.at;
      let ms = (done ?? failed ?? r0.events.at(-1))?.at ?? 0;
      const cachedTiming = cache?.current.hit ? cache.timing() : undefined;
      if (cachedTiming) ({ ttftMs, totalMs: ms } = cachedTiming);
      else if (done) cache?.recordTiming({ ttftMs, totalMs: ms });
      const answer: string = done?.data.answer ?? '';
      const citations: Array<{ fileName: string; pageNumber: string }> =
        r0.events.find((e) => e.event === 'citations')?.data.citations ?? [];
      const lastSearch = seen.last as { query: SearchQuery; hits: SearchHit[] } | undefined;
      const hits = lastSearch?.hits ?? [];
      const gold = new Set([item.page, ...(item.alsoOnPages ?? [])]);
      const r: ItemResult = {
        id: item.id,
        kind: item.kind,
        question: item.question,
        multiTurn: !!item.pastMessages,
        query: lastSearch?.query.text ?? '',
        citations: citations.map((c) => ({ fileName: c.fileName, pageNumber: c.pageNumber })),
        answer,
        top: hits.slice(0, 5).map((x) => `${x.chunk.fileName}#${x.chunk.pageNumber}`),
        ms,
        ttftMs,
        ...(cache?.current.hit ? { cached: true } : {}),
        ...(failed ? { error: String(failed.data.errorCode) } : {}),
      };
      if (item.kind === 'unanswerable') {
        r.noCitation = citations.length === 0;
      } else {
        r.hit5 = hits
          .slice(0, 5)
          .some((x) => x.chunk.fileName === item.fileName && gold.has(Number(x.chunk.pageNumber)));
        r.answerHasPhrase = answerVariants(answer).some((v) => v.includes(normalisedPhrase(item.answer)));
        for (const c of r.citations) c.correct = onPage(c.fileName, c.pageNumber, item.answer);
        r.anyCorrectCitation = r.citations.some((c) => c.correct);
      }
      results.push(r);
      if (item.kind !== 'unanswerable') {
        const passages: Passage[] = hits.slice(0, 8).map((x, i) => ({
          n: i + 1,
          fileName: x.chunk.fileName,
          pageNumber: x.chunk.pageNumber,
          text: x.chunk.text,
        }));
        replays.push({ item, query: r.query, passages });
      }
      if (PROVIDER !== 'extractive') {
        log(
          `${k + 1}/${items.length} ${r.id} ${r.cached ? 'cached' : `${(ms / 1000).toFixed(1)} s`} ` +
            `phrase=${r.answerHasPhrase ?? '-'} page=${r.anyCorrectCitation ?? '-'}${r.error ? ` error=${r.error}` : ''}`,
        );
      }
      if (process.env.EVAL_VERBOSE) {
        log(
          `${r.id} ${r.kind} hit5=${r.hit5 ?? '-'} phrase=${r.answerHasPhrase ?? '-'} cites=${r.citations
            .map(
              (c) => `${c.fileName}#${c.pageNumber}${c.correct === undefined ? '' : c.correct ? '+' : '-'}`,
            )
            .join(',')} q="${r.query}" top=${r.top.join(',')}`,
        );
      }
    }

    // The answered/precision trade-off of LOCAL_ANSWER_MIN_MARGIN, replayed on the same passages,
    // per half of the items: the margin is chosen on half A and reported on half B.
    const replayOn = (minMargin: number, subset: Replay[]) => {
      const gen = new LocalGenerator({ minMargin });
      let cited = 0;
      let correct = 0;
      let answered = 0;
      for (const { item, query, passages } of subset) {
        const text = gen.compose({
          question: item.question,
          query,
          history: item.pastMessages ?? [],
          passages,
        });
        const pagesCited = new Set(
          [...text.matchAll(/\[(\d+)\]/g)]
            .map((m) => passages[Number(m[1]) - 1])
            .map((p) => `${p.fileName}#${p.pageNumber}`),
        );
        if (pagesCited.size) answered++;
        for (const key of pagesCited) {
          cited++;
          const [file, page] = key.split('#');
          if (onPage(file, page, item.answer)) correct++;
        }
      }
      return { precision: pct(correct, cited), answered: pct(answered, subset.length) };
    };
    const curve: MarginPoint[] = MARGINS.map((minMargin) => ({
      minMargin,
      all: replayOn(minMargin, replays),
      A: replayOn(
        minMargin,
        replays.filter((r) => halfOf(r.item.id) === 'A'),
      ),
      B: replayOn(
        minMargin,
        replays.filter((r) => halfOf(r.item.id) === 'B'),
      ),
    }));
    const report = summarise(results, h.indexSeconds, curve);
    const json = path.join(ROOT, `dist/rag-bench/eval-results-${PROVIDER}.json`);
    fs.mkdirSync(path.dirname(json), { recursive: true });
    fs.writeFileSync(
      json,
      JSON.stringify(
        { engine: ENGINE, indexing: INDEXING, provider: PROVIDER, metrics: report.metrics, results },
        null,
        2,
      ),
    );
    const model =
      PROVIDER === 'local-llm'
        ? path.basename(h.app.cfg.llmModelPath)
        : PROVIDER === 'openai'
          ? h.app.cfg.openaiModel
          : 'extractive';
    if (WRITE) {
      writeProviderMetrics(ROOT, 'dev', PROVIDER, { model, engine: ENGINE, ...report.metrics });
      const doc = path.join(ROOT, 'docs/evaluation.md');
      const current =
        PROVIDER === 'extractive' || !fs.existsSync(doc) ? report.markdown : fs.readFileSync(doc, 'utf8');
      fs.writeFileSync(doc, renderProviderComparison(ROOT, current));
      log('wrote docs/evaluation.md');
    }
    console.log(
      PROVIDER === 'extractive' ? report.markdown : JSON.stringify({ model, ...report.metrics }, null, 2),
    );
  } finally {
    await h.close();
  }
}

function summarise(results: ItemResult[], indexSeconds: number, curve: MarginPoint[]) {
  const answerable = results.filter((r) => r.kind !== 'unanswerable');
  const unanswerable = results.filter((r) => r.kind === 'unanswerable');
  const allCitations = answerable.flatMap((r) => r.citations);
  const metrics = {
    items: results.length,
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    hitAt5: pct(answerable.filter((r) => r.hit5).length, answerable.length),
    citationPrecision: pct(allCitations.filter((c) => c.correct).length, allCitations.length),
    citationsPerAnswer: pct(allCitations.length, answerable.length),
    answeredWithCorrectCitation: pct(
      answerable.filter((r) => r.anyCorrectCitation).length,
      answerable.length,
    ),
    answerContainsPhrase: pct(answerable.filter((r) => r.answerHasPhrase).length, answerable.length),
    unanswerableNoCitation: pct(unanswerable.filter((r) => r.noCitation).length, unanswerable.length),
    answerableRefused: pct(answerable.filter((r) => r.citations.length === 0).length, answerable.length),
    errors: results.filter((r) => r.error).length,
    cached: results.filter((r) => r.cached).length,
    ttftP50Ms: percentile(sortedDefined(results.map((r) => r.ttftMs)), 50),
    ttftP95Ms: percentile(sortedDefined(results.map((r) => r.ttftMs)), 95),
    askP50Ms: percentile(
      [...results.map((r) => r.ms)].sort((a, b) => a - b),
      50,
    ),
    askP95Ms: percentile(
      [...results.map((r) => r.ms)].sort((a, b) => a - b),
      95,
    ),
    indexSeconds,
  };
  const chosen = chooseMargin(curve);
  const halfA = answerable.filter((r) => halfOf(r.id) === 'A').length;
  const halfB = answerable.length - halfA;
  const byHalf = (['A', 'B'] as const).map((half) => {
    const rs = answerable.filter((r) => halfOf(r.id) === half);
    const cs = rs.flatMap((r) => r.citations);
    return `| ${half} | ${rs.length} | ${f2(pct(rs.filter((r) => r.anyCorrectCitation).length, rs.length))} | ${f2(
      pct(cs.filter((c) => c.correct).length, cs.length),
    )} | ${f2(pct(rs.filter((r) => r.answerHasPhrase).length, rs.length))} | ${f2(
      pct(rs.filter((r) => r.citations.length === 0).length, rs.length),
    )} |`;
  });
  const kinds = [...new Set(results.map((r) => r.kind))];
  const byKind = kinds.map((k) => {
    const rs = results.filter((r) => r.kind === k);
    if (k === 'unanswerable')
      return `| ${k} | ${rs.length} | | | | ${f2(pct(rs.filter((r) => r.noCitation).length, rs.length))} |`;
    const cs = rs.flatMap((r) => r.citations);
    return `| ${k} | ${rs.length} | ${f2(pct(rs.filter((r) => r.hit5).length, rs.length))} | ${f2(
      pct(cs.filter((c) => c.correct).length, cs.length),
    )} | ${f2(pct(rs.filter((r) => r.answerHasPhrase).length, rs.length))} | |`;
  });
  const misses = results.filter(
    (r) =>
      (r.kind === 'unanswerable' && !r.noCitation) ||
      (r.kind !== 'unanswerable' && (!r.hit5 || !r.answerHasPhrase || r.citations.some((c) => !c.correct))),
  );
  const missLines = misses.map((r) => {
    const what =
      r.kind === 'unanswerable'
        ? 'answered with citations'
        : [
            r.hit5 ? '' : 'not in top 5',
            r.answerHasPhrase ? '' : 'phrase missing from answer',
            r.citations.length === 0
              ? 'no citation'
              : r.citations.some((c) => !c.correct)
                ? `wrong citation ${r.citations
                    .filter((c) => !c.correct)
                    .map((c) => `${c.fileName} p.${c.pageNumber}`)
                    .join(', ')}`
                : '',
          ]
            .filter(Boolean)
            .join('; ');
    return `| ${r.id} | ${r.kind} | ${what} | \`${r.query.replace(/\|/g, '\\|').slice(0, 90)}\` |`;
  });
  const markdown = `# Evaluation: answers on the dev corpus

Command: \`npm run eval\` (${ENGINE === 'embedded' ? 'embedded search engine' : 'Elasticsearch'}; corpus indexed ${
    INDEXING === 'pipeline'
      ? 'through the indexing pipeline: S3 -> POST /index -> Temporal workflows'
      : 'by direct seeding through the SearchIndex port'
  }). Options: \`EVAL_ENGINE=elasticsearch\`, \`EVAL_INDEXING=direct\`, \`EVAL_VERBOSE=1\`, \`EVAL_WRITE=0\`.

The dev corpus (\`shared/corpus/dev\`: 16 PDFs, 935 pages, ${metrics.items} QA items) is indexed into one docset,
then every item goes through \`POST /api/v1/document_proxy/ask\` with the **local provider** (hashing embedder,
local rewriter, local reranker, extractive answerer) and default settings (retrievalLimit 8, minimumSimilarityScore 0), with its
\`pastMessages\` where the item has them. Phrase checks use the normalisation of \`shared/corpus/verify_qa.sh\`.

| metric | value | definition |
|---|---|---|
| retrieval hit@5 | **${f2(metrics.hitAt5)}** | the gold file and page (or one of \`alsoOnPages\`) is among the first 5 retrieved chunks (${metrics.answerable} answerable items) |
| citation precision | **${f2(metrics.citationPrecision)}** | cited pages whose text contains the answer phrase, over all citations of answerable items (${allCitations.length} citations, ${f2(metrics.citationsPerAnswer)} per answer) |
| answered with a correct citation | ${f2(metrics.answeredWithCorrectCitation)} | answerable items with at least one citation of a page holding the phrase |
| answer contains phrase | **${f2(metrics.answerContainsPhrase)}** | the answer text contains the answer phrase |
| unanswerable answered with no citation | **${f2(metrics.unanswerableNoCitation)}** | ${metrics.unanswerable} unanswerable items |
| answerable items refused | ${f2(metrics.answerableRefused)} | answerable items answered "not found" (no citation) |
| /ask latency p50 / p95 | ${metrics.askP50Ms} / ${metrics.askP95Ms} ms | sequential, on this machine |
| indexing time | ${indexSeconds.toFixed(0)} s | the whole corpus |

## By half (which numbers are in-sample)

Everything above is **in-sample**: the question patterns, weights and checks of the local answerer and
reranker were developed on this dev set. Only \`LOCAL_ANSWER_MIN_MARGIN\` is chosen on half A (odd item
numbers) and reported on half B (even item numbers), below; for half B that threshold is out of sample,
the rest is not. The similar corpus (\`shared/corpus/similar\`) was never used for tuning.

| half | answerable items | right page cited | citation precision | answer contains phrase | answerable refused |
|---|---|---|---|---|---|
${byHalf.join('\n')}

## By kind

| kind | items | hit@5 | citation precision | answer contains phrase | unanswerable, no citation |
|---|---|---|---|---|---|
${byKind.join('\n')}

## Items with a miss

| item | kind | miss | query searched |
|---|---|---|---|
${missLines.join('\n')}

## Citation precision vs answered questions (LOCAL_ANSWER_MIN_MARGIN), chosen on half A, reported on half B

The local answerer cites a page only when its best sentence beats the best sentence of every other page
by \`LOCAL_ANSWER_MIN_MARGIN\`; below it, it answers "not found". Replayed on the same retrieved passages
(the uncovered-topic check is not re-applied; answerable items only). The items are split by the parity of
their number: **half A** (odd, ${halfA} answerable items) chooses the margin, the most answered with citation
precision >= ${PRECISION_TARGET} (else the most precise); **half B** (even, ${halfB} items) reports it.

| LOCAL_ANSWER_MIN_MARGIN | half A precision | half A answered | half B precision | half B answered | all precision | all answered |
|---|---|---|---|---|---|---|
${curve
  .map(
    (c) =>
      `| ${c.minMargin.toFixed(1)}${c.minMargin === DEFAULT_MARGIN ? ' (default)' : ''}${c === chosen ? ' (chosen on A)' : ''} | ${f2(c.A.precision)} | ${f2(c.A.answered)} | ${f2(c.B.precision)} | ${f2(c.B.answered)} | ${f2(c.all.precision)} | ${f2(c.all.answered)} |`,
  )
  .join('\n')}

Held-out result (half B) at the margin chosen on half A (${chosen.minMargin.toFixed(1)}): citation precision
**${f2(chosen.B.precision)}**, answerable items answered with a citation **${f2(chosen.B.answered)}**.${
    chosen.minMargin === DEFAULT_MARGIN
      ? ''
      : ` **The default (${DEFAULT_MARGIN}) differs from the margin half A chooses (${chosen.minMargin}).**`
  }

## What was tuned (chunking-independent)

Tuned on this dev set (in-sample: the numbers are optimistic for other corpora; see "By half"):

- **Query building**: keyword questions (1-5 words, no punctuation, no history) are searched as typed; the
  others go through the local rewriter, which keeps the question and appends up to six subject terms of the
  conversation (identifiers first, then words both turns used), so follow-ups retrieve the earlier subject.
- **Retrieval and rerank**: hybrid BM25 + local-hashing vectors fused with RRF (vector leg weighted 0.3, the
  embedder's recommendation), 24 candidates, then the local lexical reranker (best window of nearby query
  terms, coverage, bigrams, answer-type evidence, index-page penalty) keeps 8. This lifted hit@5 from
  0.86 (embedded) / 0.83 (Elasticsearch) to about 0.89-0.90.
- **Answer sentence selection**: sentences scored by rare query terms (a trailing scope phrase such as "in X?"
  and history terms weigh less), bigrams, the kind of answer asked for (command, number, definition, reason),
  title and index penalties, rank and coverage priors; the sentence before or after is added when the best
  one refers back or introduces a command. Wordings that matched a single dev question ("roughly", "by what
  factor", "what ... command line", "what does ... treat", a leading "According to X,") were removed: what
  they measured was that one item (before/after on the whole set in docs/decisions.md).
- **Refusal**: an uncovered-topic check (query terms found nowhere in the docsets: at least two, or a quarter
  of the terms) and the page margin above. Unanswerable items are all answered without citations; the price
  is that about a third of answerable items are refused at the default margin (table above).
- No minimum similarity by default: the hashing embedder's cosine is lexical and did not separate relevant
  from irrelevant chunks better than the checks above.

Results are from one run on the development machine; the local provider is deterministic, so reruns give the
same quality numbers (latencies vary).
`;
  return { metrics, markdown };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
