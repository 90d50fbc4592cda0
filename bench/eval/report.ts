/* Renders docs/evaluation.md from the results files of `npm run eval` (bench/eval/results). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chooseMargin, DEFAULT_MARGIN, MarginPoint, PRECISION_TARGET } from './margin-curve';
import type { Metrics } from './metrics';
import type { ItemScore, PageRef } from './scoring';

export const RESULTS_DIR = path.resolve(__dirname, '../../../../bench/eval/results');

export interface ItemRecord extends ItemScore {
  question: string;
  /** The query that was searched (after keyword routing and the rewriter). */
  query: string;
  answer: string;
  cited: PageRef[];
  /** First 5 retrieved chunks, `file#page`. */
  top: string[];
  /** ms to the `done` event (SSE, sequential). */
  ms: number;
  /** ms to the first `delta` event. */
  ttftMs?: number;
  /** A generative answer from the eval cache: its times are those of the run that generated it. */
  cached?: boolean;
  /** Error code of an answer that failed (an SSE `error` event). */
  error?: string;
}

export interface RunResult {
  corpus: string;
  engine: string;
  provider: string;
  /** The answer model (local-llm: the GGUF file; openai: OPENAI_MODEL; local: `local`). */
  model?: string;
  indexing: string;
  /** Set when only a sample of the items was asked (EVAL_SAMPLE): how many of how many. */
  sampled?: string;
  embedder: string;
  date: string;
  indexSeconds: number;
  askP50Ms: number;
  askP95Ms: number;
  ttftP50Ms?: number;
  ttftP95Ms?: number;
  errors?: number;
  metrics: Metrics;
  /** The same metrics on the held-out half (odd-numbered items). */
  heldOut: Metrics;
  /** The same metrics per item kind. */
  byKind?: Record<string, Metrics>;
  marginCurve: MarginPoint[];
  items: ItemRecord[];
}

/**
 * Before/after tables of the answer-choosing changes (written by hand from replays and runs of
 * both code versions: a results file holds one version only), appended to the rendered page.
 */
export const CHANGES_FILE = path.resolve(__dirname, '../../../../bench/eval/changes.md');

export function readChanges(file = CHANGES_FILE): string {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
}

export function readResults(dir = RESULTS_DIR): RunResult[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as RunResult);
}

const CORPUS_TITLES: Record<string, string> = {
  dev: '`shared/corpus/dev`: 16 software manuals (935 pages), 77 questions',
  similar: '`shared/corpus/similar`: 20 NTSB reports of one template (81 pages), 50 questions',
  blind:
    '`bench/eval/blind`: 12 documents of Debian packages no round used (734 pages), 60 questions written blind',
};
const ENGINE_ORDER = ['embedded', 'elasticsearch'];
/** Corpora whose items this page does not show (bench/eval/blind/SOURCES.md). */
const FIGURES_ONLY = new Set(['blind']);

export const f2 = (x: number) => (x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(2));
const sec = (ms?: number) => (ms === undefined || Number.isNaN(ms) ? 'n/a' : `${(ms / 1000).toFixed(1)} s`);
/** Column label of a run: the engine, with the provider when it is not the extractive one. */
const label = (r: RunResult) => (r.provider === 'local' ? r.engine : `${r.engine}, ${r.provider}`);
const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ');

type Row = [label: string, value: (m: Metrics) => number, aim?: string, count?: (m: Metrics) => number];

const SINGLE_ROWS: Row[] = [
  ['retrieval hit@5, file', (m) => m.fileHit5],
  ['retrieval hit@5, page', (m) => m.pageHit5],
  ['answer cites the right file', (m) => m.citesFile],
  ['answer cites the right page', (m) => m.citesPage],
  ['citation precision, file', (m) => m.citationPrecisionFile],
  ['citation precision, page holds the answer phrase', (m) => m.citationPrecisionPhrase],
  ['answer text contains the answer phrase', (m) => m.answerHasPhrase],
  ['answerable items answered without a citation', (m) => m.answerableRefused],
];
const MULTI_ROWS: Row[] = [
  ['every named document in the top 5 retrieved', (m) => m.multiAllInTop5],
  ['every named document among the passages', (m) => m.multiAllInPassages],
  ['**found**: every named document cited', (m) => m.multiFound],
  ['every named document cited on a right page', (m) => m.multiFoundPages],
  ['every named document cited, and no other', (m) => m.multiOnlyNamed],
];

/** Aims of issue 14 (answers from the right document). */
const AIMS: Record<string, Record<string, string>> = {
  similar: {
    'answer cites the right file': '>= 0.97',
    'answer cites the right page': '>= 0.90',
    '**found**: every named document cited': '>= 0.70',
  },
  dev: { 'answer cites the right page': '>= 0.85' },
};

function corpusSection(corpus: string, runs: RunResult[]): string {
  const engines = runs.map(label);
  const head = `| metric | aim | ${engines.join(' | ')} |\n|---|---|${engines.map(() => '---|').join('')}`;
  const cell = (r: RunResult, f: (m: Metrics) => number) => `${f2(f(r.metrics))} (${f2(f(r.heldOut))})`;
  const rows = (title: string, count: (m: Metrics) => number, defs: Row[]) => [
    `| *${title}* | | ${runs.map((r) => `${count(r.metrics)} (${count(r.heldOut)})`).join(' | ')} |`,
    ...defs.map(
      ([label, f]) =>
        `| ${label} | ${AIMS[corpus]?.[label] ?? ''} | ${runs.map((r) => cell(r, f)).join(' | ')} |`,
    ),
  ];
  const lines = [head];
  const any = (f: (m: Metrics) => number) => runs.some((r) => f(r.metrics) > 0);
  if (any((m) => m.single)) lines.push(...rows('single-document items', (m) => m.single, SINGLE_ROWS));
  if (any((m) => m.multi)) lines.push(...rows('list and compare items', (m) => m.multi, MULTI_ROWS));
  if (any((m) => m.unanswerable))
    lines.push(
      ...rows('unanswerable items', (m) => m.unanswerable, [
        ['answered with no citation', (m) => m.unanswerableNoCitation],
      ]),
    );
  lines.push(
    `| /ask latency p50 / p95 (ms, sequential) | | ${runs.map((r) => `${r.askP50Ms} / ${r.askP95Ms}`).join(' | ')} |`,
  );
  lines.push(`| answer model | | ${runs.map((r) => `\`${r.model ?? r.provider}\``).join(' | ')} |`);
  if (runs.some((r) => r.sampled))
    lines.push(`| items asked | | ${runs.map((r) => r.sampled ?? 'all').join(' | ')} |`);
  lines.push(`| indexing time (s, ${runs[0].indexing}) | | ${runs.map((r) => r.indexSeconds).join(' | ')} |`);
  lines.push(`| embedder | | ${runs.map((r) => `\`${r.embedder}\``).join(' | ')} |`);
  lines.push(`| run on | | ${runs.map((r) => r.date).join(' | ')} |`);

  const first = runs[0];
  const kinds = [...new Set(first.items.map((i) => i.kind))];
  const byKind = kinds.map((k) => {
    const cols = runs.map((r) => {
      const xs = r.items.filter((i) => i.kind === k);
      const s = (f: (i: ItemRecord) => boolean | undefined) =>
        f2(xs.filter((i) => f(i) === true).length / xs.length);
      if (xs[0]?.cls === 'unanswerable') return `no citation ${s((i) => i.noCitation)}`;
      return `${s((i) => i.fileHit5)} / ${s((i) => i.pageHit5)} / ${s((i) => i.citesFile)} / ${s((i) => i.citesPage)}`;
    });
    return `| ${k} | ${first.items.filter((i) => i.kind === k).length} | ${cols.join(' | ')} |`;
  });

  const misses = runs.map((r) => {
    if (FIGURES_ONLY.has(corpus))
      return `Misses on ${label(r)}: not listed (this corpus is reported by its figures only, so that no change is made to its items).`;
    const bad = r.items.filter((i) =>
      i.cls === 'unanswerable' ? !i.noCitation : i.cls === 'multi' ? !i.citesFile : !i.citesPage,
    );
    const lines = bad.map((i) => {
      const what =
        i.cls === 'unanswerable'
          ? 'cited'
          : [
              i.fileHit5 ? (i.pageHit5 ? '' : 'page not in top 5') : 'file not in top 5',
              i.cited.length === 0
                ? 'no citation'
                : `cited ${i.cited.map((c) => `${c.fileName} p.${c.pageNumber}`).join(', ')}`,
            ]
              .filter(Boolean)
              .join('; ');
      return `| ${i.id} | ${i.kind} | ${esc(what)} | \`${esc(i.query).slice(0, 100)}\` |`;
    });
    return `Misses on ${label(r)} (${bad.length}):\n\n| item | kind | miss | query searched |\n|---|---|---|---|\n${lines.join('\n')}`;
  });

  const curve = runs.filter((r) => r.marginCurve.length);
  const pa = (x?: { precision: number; answered: number }) =>
    x ? `${f2(x.precision)} / ${f2(x.answered)}` : 'n/a';
  const curveTable = curve.length
    ? `Citation precision (cited page holds the answer phrase) / answered share of answerable items, replayed at other
\`LOCAL_ANSWER_MIN_MARGIN\` values on the same passages: all items; the half looked at (even ids), which
chooses the margin (the most answered with precision >= ${PRECISION_TARGET}); the held-out half (odd ids), which
reports it.

| LOCAL_ANSWER_MIN_MARGIN | ${curve.map((r) => `${label(r)}: all | looked at | held out`).join(' | ')} |
|---|${curve.map(() => '---|---|---|').join('')}
${curve[0].marginCurve
  .map(
    (p, i) =>
      `| ${p.minMargin.toFixed(1)}${p.minMargin === DEFAULT_MARGIN ? ' (default)' : ''} | ${curve
        .map((r) => {
          const q = r.marginCurve[i];
          const chosen = chooseMargin(r.marginCurve)?.minMargin === q.minMargin ? ' (chosen)' : '';
          return `${pa(q)} | ${pa(q.lookedAt)}${chosen} | ${pa(q.heldOut)}`;
        })
        .join(' | ')} |`,
  )
  .join('\n')}

${curve
  .map((r) => {
    const c = chooseMargin(r.marginCurve);
    if (!c) return '';
    return `${label(r)}: the margin chosen on the half looked at is ${c.minMargin.toFixed(1)}${
      c.minMargin === DEFAULT_MARGIN ? ' (the default)' : ` (**the default is ${DEFAULT_MARGIN}**)`
    }; on the held-out half it gives citation precision ${f2(c.heldOut!.precision)} with ${f2(c.heldOut!.answered)} of answerable items answered.`;
  })
  .filter(Boolean)
  .join('\n')}
`
    : '';

  return `## ${corpus} corpus (${CORPUS_TITLES[corpus] ?? corpus})

Values: all items (held-out half, odd-numbered ids, in brackets).

${lines.join('\n')}

By kind: retrieval file@5 / page@5 / cites file / cites page (list and compare: every named document).

| kind | items | ${engines.join(' | ')} |
|---|---|${engines.map(() => '---|').join('')}
${byKind.join('\n')}

${curveTable}
${misses.join('\n\n')}
`;
}

/** Every provider evaluated on a corpus, one row per (engine, provider): quality and time. */
function providerTable(results: RunResult[]): string {
  if (!results.some((r) => r.provider !== 'local')) return '';
  const rows = [...results]
    .sort(
      (a, b) =>
        a.corpus.localeCompare(b.corpus) ||
        ENGINE_ORDER.indexOf(a.engine) - ENGINE_ORDER.indexOf(b.engine) ||
        a.provider.localeCompare(b.provider),
    )
    .map((r) => {
      const m = r.metrics;
      return `| ${r.corpus}${r.sampled ? ` (${r.sampled})` : ''} | ${r.engine} | ${r.provider} | \`${r.model ?? r.provider}\` | ${f2(m.answerHasPhrase)} | ${f2(
        m.citesPage,
      )} | ${f2(m.citationPrecisionPhrase)} | ${f2(m.unanswerableNoCitation)} | ${f2(m.answerableRefused)} | ${sec(
        r.ttftP50Ms,
      )} / ${sec(r.ttftP95Ms)} | ${sec(r.askP50Ms)} / ${sec(r.askP95Ms)} | ${r.errors ?? 0} | ${r.date} |`;
    });
  return `## Answer providers side by side

Same corpus, index and retrieval; only the answer provider differs (\`npm run eval -- --provider local|local-llm|openai\`).
Quality on single-document items (all items; see each corpus section for the held-out half). Times are measured by
the client over SSE, one question at a time, on this shared 2-core machine: to the first \`delta\` event and to the
\`done\` event. Aims for the 1.5B model on 2 cores (issue 15): phrase >= 0.60, right page >= 0.85, unanswerable
declined >= 0.85, first delta p95 <= 15 s.

| corpus | engine | provider | model | answer contains phrase | cites right page | citation precision | unanswerable declined | answerable refused | first delta p50 / p95 | total p50 / p95 | errors | run on |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
}

/** An aim of the issues, checked on every run it applies to. */
interface Aim {
  issue: number;
  corpus?: string;
  /** Providers the aim is stated for (issue 14: any; issue 15: the local model). */
  providers?: string[];
  what: string;
  min?: number;
  max?: number;
  value: (r: RunResult) => number | undefined;
  show: (x: number) => string;
}

const AIM_LIST: Aim[] = [
  {
    issue: 14,
    corpus: 'similar',
    what: 'fact items cite the right report',
    min: 0.97,
    value: (r) => r.metrics.citesFile,
    show: f2,
  },
  {
    issue: 14,
    corpus: 'similar',
    what: 'fact items cite the right page',
    min: 0.9,
    value: (r) => r.metrics.citesPage,
    show: f2,
  },
  {
    issue: 14,
    corpus: 'similar',
    what: 'list/compare items found',
    min: 0.7,
    value: (r) => r.metrics.multiFound,
    show: f2,
  },
  {
    issue: 14,
    corpus: 'dev',
    what: 'questions cite the right page',
    min: 0.85,
    value: (r) => r.metrics.citesPage,
    show: f2,
  },
  {
    issue: 15,
    providers: ['local-llm'],
    what: 'answer contains the phrase',
    min: 0.6,
    value: (r) => r.metrics.answerHasPhrase,
    show: f2,
  },
  {
    issue: 15,
    providers: ['local-llm'],
    what: 'cites the right page',
    min: 0.85,
    value: (r) => r.metrics.citesPage,
    show: f2,
  },
  {
    issue: 15,
    providers: ['local-llm'],
    what: 'unanswerable declined',
    min: 0.85,
    value: (r) => r.metrics.unanswerableNoCitation,
    show: f2,
  },
  {
    issue: 15,
    providers: ['local-llm'],
    what: 'first delta p95',
    max: 15_000,
    value: (r) => r.ttftP95Ms,
    show: (x) => sec(x),
  },
];

/**
 * An aim's measured value as the table shows it: a share that rounds to its aim without reaching
 * it gets a third decimal (0.847, not "0.85, not met", which would read as a slip).
 */
export function shownAimValue(v: number, aim: number, met: boolean, show: (x: number) => string): string {
  return !met && show === f2 && f2(v) === f2(aim) ? v.toFixed(3) : show(v);
}

/** Every aim against every run it applies to: the value and whether it is met. */
function aimsTable(results: RunResult[]): string {
  const rows: string[] = [];
  for (const a of AIM_LIST) {
    for (const r of results) {
      if (a.corpus && r.corpus !== a.corpus) continue;
      if (a.providers && !a.providers.includes(r.provider)) continue;
      const v = a.value(r);
      if (v === undefined || Number.isNaN(v)) continue;
      const met = (a.min === undefined || v >= a.min) && (a.max === undefined || v <= a.max);
      const aim = a.min !== undefined ? `>= ${a.show(a.min)}` : `<= ${a.show(a.max!)}`;
      const shown = shownAimValue(v, a.min ?? a.max!, met, a.show);
      rows.push(
        `| ${a.issue} | ${r.corpus}${r.sampled ? ` (${r.sampled})` : ''} | ${r.engine} | ${r.provider} | ${a.what} | ${aim} | ${shown} | ${met ? 'met' : '**not met**'}${r.sampled ? ' (sample: not conclusive)' : ''} |`,
      );
    }
  }
  if (!rows.length) return '';
  return `## Aims of issues 14 and 15

Every aim against every run it applies to (all items; issue 14's aims hold for any answer provider, issue
15's for the local generative model). The figures depend a little on the embedder's precision, which follows
the CPU (int8 where it has integer dot-product instructions, fp32 elsewhere; each corpus table names the embedder
of its runs): on one host the int8 graph cited dev's right page for one question fewer on each engine and
changed nothing on similar (bench/eval/changes.md, "The embedder's precision judged on one host").

| issue | corpus | engine | provider | aim | target | measured | |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
}

export function renderReport(results: RunResult[], changes = ''): string {
  const corpora = [...new Set(results.map((r) => r.corpus))].sort();
  const sections = corpora.map((c) =>
    corpusSection(
      c,
      results
        .filter((r) => r.corpus === c)
        .sort(
          (a, b) =>
            ENGINE_ORDER.indexOf(a.engine) - ENGINE_ORDER.indexOf(b.engine) ||
            a.provider.localeCompare(b.provider),
        ),
    ),
  );
  const direct = results.some((r) => r.indexing === 'direct')
    ? `\n**Runs marked \`direct\`** seeded each corpus through the SearchIndex port (same extraction, document context,
chunking and embedder as the pipeline, without S3 and Temporal); with \`EVAL_EMBED_CACHE\` the document vectors of
one run are reused by the next, so their indexing times measure the machine and the cache, not the pipeline.\n`
    : '';
  return `# Evaluation: answers on the QA corpora

Command: \`npm run eval\` (the three corpora, both search engines; by default each corpus is indexed through the
indexing pipeline: S3 -> POST /index -> Temporal workflows; each table names the indexing of its runs). Options: \`--engine embedded|elasticsearch\`,
\`--corpus dev|similar|blind\`, \`--indexing direct\` (or \`EVAL_ENGINE\`, \`EVAL_CORPUS\`, \`EVAL_INDEXING\`),
\`EVAL_VERBOSE=1\`, \`EVAL_WRITE=0\`. Each run writes \`bench/eval/results/<corpus>.<engine>.<provider>.json\`
(every item with its query, top 5, answer and citations); this page is rendered from those files. A ranking or
answering change is stated with \`npm run eval:compare -- <dir of the results before>\` (whole-set figures before ->
after, all items and the held-out half, and the items whose top 5, citations or outcome changed); two runs of the
same code give the same top 5 and the same answer for every item (bench/eval/changes.md, "Repeatable rankings";
on Elasticsearch since its kNN leg is exact for docsets of up to 10,000 chunks: changes.md, "Round twenty-nine").

Every item goes through \`POST /api/v1/document_proxy/ask\` (Server-Sent Events) with default settings
(retrievalLimit 8, minimumSimilarityScore 0) and its \`pastMessages\` where it has them. Columns are per
search engine with the **local provider** (local rewriter and reranker, extractive answerer, the embedder named
in each table) unless they name another answer provider (\`--provider local-llm|openai\`: the local GGUF model or
an OpenAI-compatible server, with their own rewriter; [answer-providers.md](answer-providers.md)).
${direct}
Definitions:

- *single-document items* have one gold file and page (\`page\` or one of \`alsoOnPages\`). Retrieval hit@5:
  the gold file (page) is among the first 5 chunks handed to the answerer. The answer cites the right
  file (page) when at least one of its citations is that file (and page).
- *list and compare items* (similar corpus) name several documents (\`fileName\` + \`alsoFiles\`). An item
  is **found** only when every named document is cited.
- *unanswerable items* count when answered with no citation.
- Phrase checks use the normalisation of the corpora's \`verify_qa.sh\` (numbers with or without
  thousands separators).
- The held-out half (odd-numbered ids) was not looked at when weights were chosen; the even half was.
  Numbers for all items are in-sample for the dev corpus (the extractive answerer's patterns and weights
  were developed on it); the held-out half and the similar corpus are the out-of-sample numbers.
- The **blind** corpus (\`bench/eval/blind\`: 12 documents of Debian packages, 734 pages, 60 questions) is out of
  sample altogether: its questions were written, and checked against the pages, by someone who had not seen the
  answerer or its code, and its items are not read when a change is made; only its whole-set figures are. Its PDFs
  are fetched on first use (\`apt-get download\` of pinned package versions, checked by sha256; SOURCES.md there).

${aimsTable(results)}
${providerTable(results)}
${sections.join('\n')}${changes ? `\n${changes}` : ''}`;
}
