/* Answer-quality evaluation on the QA corpora (shared/corpus: financebench, 34 SEC filings, 68 items,
 * measured only; dev, 16 manuals, 77 items; similar, 20 near-identical NTSB reports, 50 items; blind,
 * 12 PDFs of Debian packages), per search engine, each corpus indexed alone into a fresh engine.
 *   npm run eval                                   (every corpus, both engines, indexing pipeline)
 *   npm run eval -- --engine embedded --corpus similar
 *   npm run eval -- --indexing direct              (seed through the SearchIndex port: no Temporal/S3)
 *   npm run eval -- --provider local-llm           (answers by the local GGUF model, LLM_MODEL_PATH)
 *   npm run eval -- --provider openai              (answers by OPENAI_BASE_URL / OPENAI_MODEL)
 * Options also come from EVAL_ENGINE, EVAL_CORPUS, EVAL_INDEXING, EVAL_PROVIDER (comma lists allowed
 * except for the provider); EVAL_WRITE=0 prints only; EVAL_VERBOSE=1 logs every item;
 * EVAL_EMBED_CACHE=<file> with --indexing direct keeps document embeddings by model and text, so the
 * next engine or provider run seeds the same corpora without the embedder (minutes with MiniLM);
 * EVAL_SAMPLE=<n> (or --sample n) asks only n items, taken round-robin over the item kinds in file
 * order, so a slow generative run stopped early still covers every kind (rerun with the number of
 * items answered: the answer cache replays them); EVAL_STOP_AT=<ISO time> starts no item after that time
 * and writes the items asked so far (a generative run on a loaded machine, bounded by a deadline).
 * Every QA item goes through POST /ask as Server-Sent Events (time to the first delta and to done)
 * with its pastMessages, answered by the provider (`local`: extractive, the default). Answers of
 * the generative providers are cached per question (dist/rag-bench/eval-cache), so a stopped run
 * resumes where it was and an unchanged rerun is free. Each (corpus, engine,
 * provider) run is written to bench/eval/results/<corpus>.<engine>.<provider>.json, and
 * docs/evaluation.md is rendered from every results file there (see bench/eval/report.ts). */
import '../rag/env';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EMBEDDER, Embedder } from '@docqa/embeddings';
import {
  GenerateInput,
  GENERATOR,
  Generator,
  LLM_FIRST_TOKEN_TARGET_MS,
  LLM_FLASH_ATTENTION,
  LLM_MAX_ANSWER_TOKENS,
  LLM_OPENING_CHECK,
  llmModelPath,
  PROMPT_TOKEN_BUDGET,
  RERANKER,
  Reranker,
  REWRITER,
  Rewriter,
} from '@docqa/answers';
import type { SearchHit, SearchIndex, SearchQuery } from '@docqa/search';
import { pgOf, searchIndexOf } from '../../test/support/seed';
import { postSse } from '../../test/support/sse';
import { AnswerCache, codeHash } from './answer-cache';
import { EvalProvider, PROVIDERS, providerEnv } from './providers';
import {
  Corpus,
  CORPORA,
  Engine,
  Harness,
  Indexing,
  corpusQa,
  log,
  normalisedPhrase,
  pageVariants,
  percentile,
  QaItem,
  ROOT,
  startHarness,
} from '../rag/harness';
import { aggregate, aggregateByKind } from './metrics';
import { marginCurve, Replay } from './margin-curve';
import { renderReport, RESULTS_DIR, RunResult, ItemRecord, readResults } from './report';
import { PageRef, scoreItem, stratifiedSample } from './scoring';

export interface EvalOptions {
  engines: Engine[];
  corpora: Corpus[];
  indexing: Indexing;
  /** Answer provider: `local` (extractive), `local-llm`, `openai`. */
  provider: EvalProvider;
  write: boolean;
  verbose: boolean;
  /** Items asked per corpus, round-robin over kinds (undefined: every item, in file order). */
  sample?: number;
}

/** `--name value` from the command line, else the environment variable, else the default. */
function option(name: string, env: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && process.argv[i + 1]) return process.argv[i + 1];
  return process.env[env] ?? fallback;
}

function list<T extends string>(value: string, all: readonly T[], what: string): T[] {
  const picked = value === 'all' ? [...all] : (value.split(',').map((s) => s.trim()) as T[]);
  for (const v of picked) if (!all.includes(v)) throw new Error(`unknown ${what} "${v}" (${all.join(', ')})`);
  return picked;
}

export function parseOptions(): EvalOptions {
  const engines = list(
    option('engine', 'EVAL_ENGINE', 'all'),
    ['embedded', 'elasticsearch'] as const,
    'engine',
  );
  const corpusNames = list(option('corpus', 'EVAL_CORPUS', 'all'), Object.keys(CORPORA), 'corpus');
  const indexing = list(
    option('indexing', 'EVAL_INDEXING', 'pipeline'),
    ['pipeline', 'direct'] as const,
    'indexing',
  );
  return {
    engines,
    corpora: corpusNames.map((n) => CORPORA[n]),
    indexing: indexing[0],
    provider: list(option('provider', 'EVAL_PROVIDER', 'local'), PROVIDERS, 'provider')[0],
    write: process.env.EVAL_WRITE !== '0',
    sample: option('sample', 'EVAL_SAMPLE', '') ? Number(option('sample', 'EVAL_SAMPLE', '')) : undefined,
    verbose: !!process.env.EVAL_VERBOSE,
  };
}

/** What one /ask call retrieved and handed to the generator. */
interface Observed {
  query?: SearchQuery;
  hits?: SearchHit[];
  generated?: GenerateInput;
}

/**
 * For a generative provider: the per-question answer cache around the app's generator and rewriter,
 * scoped by everything that could change an answer (provider, model file, budgets, generation code).
 */
function answerCache(h: Harness, corpus: Corpus, o: EvalOptions): AnswerCache | undefined {
  if (o.provider === 'local') return undefined;
  const generator = h.app.api.app.get<Generator>(GENERATOR);
  const cfg = h.app.cfg;
  const model = o.provider === 'local-llm' ? llmModelPath(cfg) : cfg.models.openaiModel;
  const scope = {
    provider: o.provider,
    model: o.provider === 'local-llm' ? `${path.basename(model)}:${fs.statSync(model).size}` : model,
    budget: cfg.models.promptTokenBudget ?? PROMPT_TOKEN_BUDGET,
    // The prompt's size follows the host's measured reading rate: a replay is of the same target only.
    firstTokenTargetMs: o.provider === 'local-llm' ? LLM_FIRST_TOKEN_TARGET_MS : undefined,
    flashAttention: o.provider === 'local-llm' ? LLM_FLASH_ATTENTION : undefined,
    maxTokens: cfg.models.llmMaxAnswerTokens ?? LLM_MAX_ANSWER_TOKENS,
    openingCheck: o.provider === 'local-llm' ? LLM_OPENING_CHECK : undefined,
    // With LLM_EVIDENCE=chosen the extractive answerer (local/, analysis/) picks the model's passages.
    code: codeHash(
      ['grounded', 'llama', 'openai', 'local', 'analysis'].map((d) =>
        path.join(ROOT, 'dist/rag-bench/libs/answers/src', d),
      ),
    ),
  };
  const cache = new AnswerCache(
    path.join(ROOT, `dist/rag-bench/eval-cache/${corpus.name}.${h.engine}.${o.provider}.jsonl`),
    scope,
  );
  cache.wrapGenerator(generator);
  cache.wrapRewriter(h.app.api.app.get<Rewriter>(REWRITER));
  log(`${corpus.name}: answer cache ${cache.size} entries (${JSON.stringify(scope)})`);
  return cache;
}

const observed = new WeakMap<Harness, Observed>();

/** Wraps the app's search index, reranker and generator (once) to see what each /ask call used. */
function observe(h: Harness): Observed {
  const known = observed.get(h);
  if (known) return known;
  const seen: Observed = {};
  observed.set(h, seen);
  const index: SearchIndex = searchIndexOf(h.app);
  const search = index.search.bind(index);
  index.search = async (q: SearchQuery) => {
    const hits = await search(q);
    if (!seen.query) Object.assign(seen, { query: q, hits }); // the retrieval, not the topic probes
    return hits;
  };
  // Retrieved = what the answerer gets: the search hits in the reranker's order when there is one.
  const reranker = h.app.api.app.get<Reranker | null>(RERANKER);
  if (reranker) {
    const rerank = reranker.rerank.bind(reranker);
    reranker.rerank = async (input) => {
      const r = await rerank(input);
      if (seen.hits) seen.hits = r.results.map((x) => seen.hits![x.index]);
      return r;
    };
  }
  const generator = h.app.api.app.get<Generator>(GENERATOR);
  const generate = generator.generate.bind(generator);
  generator.generate = (input: GenerateInput) => {
    seen.generated = input;
    return generate(input);
  };
  return seen;
}

async function pageTexts(h: Harness, docSetName: string): Promise<Map<string, string[]>> {
  const db = await pgOf(h.app);
  try {
    const { rows } = await db.query(
      `SELECT d.file_name, p.page_number, p.text FROM document_pages p JOIN documents d ON d.id = p.document_id
        WHERE d.account_id = $1 AND d.docset_name = $2`,
      [h.accountId, docSetName],
    );
    return new Map(rows.map((r) => [`${r.file_name}#${r.page_number}`, pageVariants(r.text)]));
  } finally {
    await db.end();
  }
}

export async function evaluateCorpus(h: Harness, corpus: Corpus, o: EvalOptions): Promise<RunResult> {
  const cache = answerCache(h, corpus, o);
  const seen = observe(h);
  const pages = await pageTexts(h, corpus.docSetName);
  const pageHasPhrase = (r: PageRef, phrase: string) =>
    (pages.get(`${r.fileName}#${r.pageNumber}`) ?? []).some((v) => v.includes(normalisedPhrase(phrase)));
  const items: ItemRecord[] = [];
  const replays: Replay[] = [];
  // Tuning aid: EVAL_DUMP_INPUTS=<dir> keeps what every /ask call handed the generator.
  const dumped: Array<{ item: QaItem; input: GenerateInput | null }> = [];
  const qa = o.sample ? stratifiedSample(corpusQa(corpus), o.sample) : corpusQa(corpus);
  const stopAt = process.env.EVAL_STOP_AT ? Date.parse(process.env.EVAL_STOP_AT) : Infinity;
  for (const [n, item] of qa.entries()) {
    if (Date.now() >= stopAt) {
      log(`${corpus.name}: EVAL_STOP_AT reached, ${n} of ${qa.length} items asked`);
      break;
    }
    for (const k of Object.keys(seen) as Array<keyof Observed>) delete seen[k];
    if (cache) cache.current = { hit: false };
    const res = await postSse(
      h.app,
      '/api/v1/document_proxy/ask',
      {
        question: item.question,
        docSetNames: [corpus.docSetName],
        ...(item.pastMessages ? { pastMessages: item.pastMessages } : {}),
        stream: true,
      },
      { token: h.token, timeoutMs: 30 * 60_000 },
    );
    if (res.status !== 200) throw new Error(`${item.id}: ${res.status} ${res.text}`);
    const done = res.events.find((e) => e.event === 'done');
    const failed = res.events.find((e) => e.event === 'error');
    let ttftMs = res.events.find((e) => e.event === 'delta')?.at;
    let ms = (done ?? failed ?? res.events.at(-1))?.at ?? 0;
    const cachedTiming = cache?.current.hit ? cache.timing() : undefined;
    if (cachedTiming) ({ ttftMs, totalMs: ms } = cachedTiming);
    else if (done) cache?.recordTiming({ ttftMs, totalMs: ms });
    const answer: string = done?.data.answer ?? '';
    const citations: PageRef[] = res.events.find((e) => e.event === 'citations')?.data.citations ?? [];
    // What the answerer was given (after reranking and diversity); the search hits when it was not called.
    const retrieved: PageRef[] = seen.generated
      ? seen.generated.passages.map((p) => ({ fileName: p.fileName, pageNumber: p.pageNumber }))
      : (seen.hits ?? []).map((x) => ({ fileName: x.chunk.fileName, pageNumber: x.chunk.pageNumber }));
    const cited = citations.map((c) => ({ fileName: c.fileName, pageNumber: c.pageNumber }));
    const searched = await searchTop10(h, corpus, item);
    const score = scoreItem(item, answer, cited, retrieved, pageHasPhrase, searched);
    items.push({
      ...score,
      question: item.question,
      query: seen.query?.text ?? '',
      answer,
      cited,
      top: retrieved.slice(0, 5).map((r) => `${r.fileName}#${r.pageNumber}`),
      ms,
      ttftMs,
      ...(cache?.current.hit ? { cached: true } : {}),
      ...(failed ? { error: String(failed.data.errorCode) } : {}),
    });
    if (score.cls !== 'unanswerable' && seen.generated) replays.push({ item, input: seen.generated });
    dumped.push({ item, input: seen.generated ? { ...seen.generated, signal: undefined } : null });
    if (o.verbose) log(`${corpus.name} ${itemLine(items[items.length - 1])}`);
    else if (o.provider !== 'local') {
      const r = items[items.length - 1];
      log(
        `${corpus.name} ${n + 1}/${qa.length} ${r.id} ${r.cached ? 'cached' : `${(ms / 1000).toFixed(1)} s`}` +
          `${r.error ? ` error ${r.error}` : ''} cites page ${r.citesPage ?? '-'} phrase ${r.answerHasPhrase ?? '-'}`,
      );
    }
  }
  if (process.env.EVAL_DUMP_INPUTS) {
    fs.mkdirSync(process.env.EVAL_DUMP_INPUTS, { recursive: true });
    fs.writeFileSync(
      path.join(process.env.EVAL_DUMP_INPUTS, `${corpus.name}.${h.engine}.json`),
      JSON.stringify(dumped),
    );
  }
  const sorted = items.map((r) => r.ms).sort((a, b) => a - b);
  const ttft = items
    .map((r) => r.ttftMs)
    .filter((x): x is number => typeof x === 'number')
    .sort((a, b) => a - b);
  const embedder = h.app.api.app.get<Embedder>(EMBEDDER);
  const generator = h.app.api.app.get<Generator>(GENERATOR);
  return {
    corpus: corpus.name,
    engine: h.engine,
    provider: o.provider,
    model: o.provider === 'local-llm' ? path.basename(llmModelPath(h.app.cfg)) : generator.defaultModel,
    indexing: h.indexing,
    ...(items.length < corpusQa(corpus).length
      ? { sampled: `${items.length} of ${corpusQa(corpus).length} items` }
      : {}),
    embedder: embedder.modelName,
    date: new Date().toISOString().slice(0, 10),
    indexSeconds: Math.round(h.indexSecondsOf[corpus.name]),
    askP50Ms: percentile(sorted, 50),
    askP95Ms: percentile(sorted, 95),
    ttftP50Ms: percentile(ttft, 50),
    ttftP95Ms: percentile(ttft, 95),
    errors: items.filter((i) => i.error).length,
    metrics: aggregate(items),
    heldOut: aggregate(items.filter((i) => i.heldOut)),
    byKind: aggregateByKind(items),
    marginCurve: o.provider === 'local' ? marginCurve(replays, pageHasPhrase) : [],
    items,
  };
}

/**
 * A run's results as the repository may keep them: FinanceBench's questions and answers are
 * licensed for measuring only (shared/corpus/financebench/SOURCES.md), so its items keep their ids,
 * kinds, scores and cited pages, not the question, the query or the answer text.
 */
export function publishable(corpus: Corpus, result: RunResult): RunResult {
  if (!corpus.measureOnly) return result;
  return { ...result, items: result.items.map((i) => ({ ...i, question: '', query: '', answer: '' })) };
}

/** Whether this app serves `POST /search` (it is measured where it does). */
const searchServed = new WeakMap<Harness, boolean>();

/**
 * The first 10 results of `POST /api/v1/document_proxy/search` for the item's question (with its
 * history as the query where it has one, as /ask would rewrite it): the evidence an API client
 * that brings its own model would see. Undefined where the endpoint is not served.
 */
async function searchTop10(h: Harness, corpus: Corpus, item: QaItem): Promise<PageRef[] | undefined> {
  if (searchServed.get(h) === false) return undefined;
  const res = await h.app.client.post(
    '/api/v1/document_proxy/search',
    { query: item.question, docSetNames: [corpus.docSetName], limit: 10 },
    { token: h.token },
  );
  if (res.status === 404) {
    searchServed.set(h, false);
    return undefined;
  }
  if (res.status !== 200) throw new Error(`${item.id}: /search ${res.status} ${JSON.stringify(res.body)}`);
  searchServed.set(h, true);
  return (res.body.results as PageRef[]).map((r) => ({
    fileName: r.fileName,
    pageNumber: String(r.pageNumber),
  }));
}

function itemLine(r: ItemRecord): string {
  const flags = [
    r.fileHit5 === undefined ? '' : `file5=${r.fileHit5} page5=${r.pageHit5}`,
    r.citesFile === undefined ? '' : `citesFile=${r.citesFile} citesPage=${r.citesPage}`,
    r.noCitation === undefined ? '' : `noCitation=${r.noCitation}`,
  ].filter(Boolean);
  return `${r.id} ${r.kind} ${flags.join(' ')} cites=${r.cited.map((c) => `${c.fileName}#${c.pageNumber}`).join(',')} q="${r.query}" top=${r.top.join(',')}`;
}

async function main() {
  const o = parseOptions();
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  for (const engine of o.engines) {
    // One engine per corpus: BM25 statistics span an index, so corpora indexed together would
    // rank each other's items, and a set's figures would depend on which others ran with it.
    for (const corpus of o.corpora) {
      const h = await startHarness({
        engine,
        indexing: o.indexing,
        corpora: [corpus],
        env: providerEnv(o.provider),
        embeddingCache: o.indexing === 'direct' ? process.env.EVAL_EMBED_CACHE : undefined,
      });
      try {
        const answering = h.app.api.app.get<Generator>(GENERATOR).provider;
        if (answering !== o.provider)
          throw new Error(`--provider ${o.provider}, but the app answers with ${answering}`);
        const result = await evaluateCorpus(h, corpus, o);
        const m = result.metrics;
        log(
          `${corpus.name}/${engine}: single ${m.single}: file@5 ${m.fileHit5.toFixed(2)} page@5 ${m.pageHit5.toFixed(2)} ` +
            `cites file ${m.citesFile.toFixed(2)} page ${m.citesPage.toFixed(2)}; multi ${m.multi}: found ${m.multiFound.toFixed(2)}; ` +
            `unanswerable ${m.unanswerable}: no citation ${m.unanswerableNoCitation.toFixed(2)}; ` +
            `bare refusals ${m.answerableRefused.toFixed(2)}, citations/answer ${m.citationsPerAnswer.toFixed(2)}, ` +
            `/search file@10 ${m.fileHit10.toFixed(2)} page@10 ${m.pageHit10.toFixed(2)}`,
        );
        const file = path.join(RESULTS_DIR, `${corpus.name}.${engine}.${o.provider}.json`);
        if (o.write) fs.writeFileSync(file, `${JSON.stringify(publishable(corpus, result), null, 1)}\n`);
        else console.log(JSON.stringify({ ...result, items: undefined }, null, 1));
      } finally {
        await h.close();
      }
    }
  }
  if (o.write) {
    fs.writeFileSync(path.join(ROOT, 'docs/evaluation.md'), renderReport(readResults()));
    log('wrote docs/evaluation.md');
  }
}

export type { QaItem };

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
