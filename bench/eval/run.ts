/* Answer-quality evaluation on the QA corpora (shared/corpus/dev: 16 manuals, 77 items;
 * shared/corpus/similar: 20 near-identical NTSB reports, 50 items), per search engine.
 *   npm run eval                                   (both corpora, both engines, indexing pipeline)
 *   npm run eval -- --engine embedded --corpus similar
 *   npm run eval -- --indexing direct              (seed through the SearchIndex port: no Temporal/S3)
 * Options also come from EVAL_ENGINE, EVAL_CORPUS, EVAL_INDEXING (comma lists allowed);
 * EVAL_WRITE=0 prints only; EVAL_VERBOSE=1 logs every item.
 * Every QA item goes through POST /ask (local provider) with its pastMessages. Each (corpus, engine,
 * provider) run is written to bench/eval/results/<corpus>.<engine>.<provider>.json, and
 * docs/evaluation.md is rendered from every results file there (see bench/eval/report.ts). */
import '../rag/env';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EMBEDDER, Embedder, GenerateInput, GENERATOR, Generator, RERANKER, Reranker } from '@docqa/llm';
import type { SearchHit, SearchIndex, SearchQuery } from '@docqa/search';
import { pgOf, searchIndexOf } from '../../test/support/seed';
import {
  Corpus,
  CORPORA,
  Engine,
  Harness,
  Indexing,
  loadQa,
  log,
  normalisedPhrase,
  pageVariants,
  percentile,
  QaItem,
  ROOT,
  startHarness,
} from '../rag/harness';
import { aggregate } from './metrics';
import { marginCurve, Replay } from './margin-curve';
import { renderReport, RESULTS_DIR, RunResult, ItemRecord, readResults } from './report';
import { PageRef, scoreItem } from './scoring';

export interface EvalOptions {
  engines: Engine[];
  corpora: Corpus[];
  indexing: Indexing;
  /** Answer provider; only the local provider exists today. */
  provider: string;
  write: boolean;
  verbose: boolean;
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
    provider: 'local',
    write: process.env.EVAL_WRITE !== '0',
    verbose: !!process.env.EVAL_VERBOSE,
  };
}

/** What one /ask call retrieved and handed to the generator. */
interface Observed {
  query?: SearchQuery;
  hits?: SearchHit[];
  generated?: GenerateInput;
}

/** Wraps the app's search index, reranker and generator to see what each /ask call used. */
function observe(h: Harness): Observed {
  const seen: Observed = {};
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

async function evaluateCorpus(h: Harness, corpus: Corpus, o: EvalOptions): Promise<RunResult> {
  const seen = observe(h);
  const pages = await pageTexts(h, corpus.docSetName);
  const pageHasPhrase = (r: PageRef, phrase: string) =>
    (pages.get(`${r.fileName}#${r.pageNumber}`) ?? []).some((v) => v.includes(normalisedPhrase(phrase)));
  const items: ItemRecord[] = [];
  const replays: Replay[] = [];
  for (const item of loadQa(corpus.dir)) {
    for (const k of Object.keys(seen) as Array<keyof Observed>) delete seen[k];
    const t0 = Date.now();
    const res = await h.app.client.post(
      '/api/v1/document_proxy/ask',
      {
        question: item.question,
        docSetNames: [corpus.docSetName],
        ...(item.pastMessages ? { pastMessages: item.pastMessages } : {}),
      },
      { token: h.token },
    );
    const ms = Date.now() - t0;
    if (res.status !== 200) throw new Error(`${item.id}: ${res.status} ${res.text}`);
    const { answer, citations } = res.body as { answer: string; citations: PageRef[] };
    const retrieved: PageRef[] = (seen.hits ?? []).map((x) => ({
      fileName: x.chunk.fileName,
      pageNumber: x.chunk.pageNumber,
    }));
    const cited = citations.map((c) => ({ fileName: c.fileName, pageNumber: c.pageNumber }));
    const score = scoreItem(item, answer, cited, retrieved, pageHasPhrase);
    items.push({
      ...score,
      question: item.question,
      query: seen.query?.text ?? '',
      answer,
      cited,
      top: retrieved.slice(0, 5).map((r) => `${r.fileName}#${r.pageNumber}`),
      ms,
    });
    if (score.cls !== 'unanswerable' && seen.generated) replays.push({ item, input: seen.generated });
    if (o.verbose) log(`${corpus.name} ${itemLine(items[items.length - 1])}`);
  }
  const sorted = items.map((r) => r.ms).sort((a, b) => a - b);
  const embedder = h.app.api.app.get<Embedder>(EMBEDDER);
  return {
    corpus: corpus.name,
    engine: h.engine,
    provider: o.provider,
    indexing: h.indexing,
    embedder: embedder.modelName,
    date: new Date().toISOString().slice(0, 10),
    indexSeconds: Math.round(h.indexSecondsOf[corpus.name]),
    askP50Ms: percentile(sorted, 50),
    askP95Ms: percentile(sorted, 95),
    metrics: aggregate(items),
    heldOut: aggregate(items.filter((i) => i.heldOut)),
    marginCurve: o.provider === 'local' ? marginCurve(replays, pageHasPhrase) : [],
    items,
  };
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
    const h = await startHarness({ engine, indexing: o.indexing, corpora: o.corpora });
    try {
      for (const corpus of o.corpora) {
        const result = await evaluateCorpus(h, corpus, o);
        const m = result.metrics;
        log(
          `${corpus.name}/${engine}: single ${m.single}: file@5 ${m.fileHit5.toFixed(2)} page@5 ${m.pageHit5.toFixed(2)} ` +
            `cites file ${m.citesFile.toFixed(2)} page ${m.citesPage.toFixed(2)}; multi ${m.multi}: found ${m.multiFound.toFixed(2)}; ` +
            `unanswerable ${m.unanswerable}: no citation ${m.unanswerableNoCitation.toFixed(2)}`,
        );
        const file = path.join(RESULTS_DIR, `${corpus.name}.${engine}.${o.provider}.json`);
        if (o.write) fs.writeFileSync(file, `${JSON.stringify(result, null, 1)}\n`);
        else console.log(JSON.stringify({ ...result, items: undefined }, null, 1));
      }
    } finally {
      await h.close();
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
