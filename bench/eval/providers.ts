/* `npm run eval -- --provider <p>`: which answer provider the evaluated app uses, and the
 * side-by-side table of providers in docs/evaluation.md, rebuilt from the metrics each run leaves
 * in docs/benchmarks/eval-<corpus>-<provider>.json. */
import * as fs from 'node:fs';
import * as path from 'node:path';

export type EvalProvider = 'extractive' | 'local-llm' | 'openai';
const PROVIDERS: EvalProvider[] = ['extractive', 'local-llm', 'openai'];

export interface EvalArgs {
  provider: EvalProvider;
  /** Only these item ids (a quick look; the docs are not written). */
  only?: string[];
}

export function parseEvalArgs(argv: string[]): EvalArgs {
  const out: EvalArgs = { provider: 'extractive' };
  for (let i = 0; i < argv.length; i++) {
    const [k, inline] = argv[i].includes('=') ? argv[i].split(/=(.*)/s) : [argv[i], undefined];
    const value = () => inline ?? argv[++i];
    if (k === '--provider') {
      const p = value() as EvalProvider;
      if (!PROVIDERS.includes(p)) throw new Error(`--provider must be one of ${PROVIDERS.join(', ')}`);
      out.provider = p;
    } else if (k === '--only') {
      out.only = value()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    } else throw new Error(`unknown option ${argv[i]} (--provider, --only)`);
  }
  return out;
}

/**
 * Environment of the evaluated app: ANSWER_PROVIDER, and for local-llm the GGUF (LLM_MODEL_PATH,
 * default the installed Qwen2.5-Coder-1.5B); openai takes OPENAI_BASE_URL/OPENAI_API_KEY/
 * OPENAI_MODEL from the environment of the run, as an operator would configure them.
 */
export function providerEnv(provider: EvalProvider): Record<string, string> {
  const env: Record<string, string> = { ANSWER_PROVIDER: provider };
  const pass = [
    'LLM_MODEL_PATH',
    'LLM_THREADS',
    'LLM_CONTEXT_SIZE',
    'LLM_MAX_ANSWER_TOKENS',
    'LLM_TIMEOUT_MS',
    'PROMPT_TOKEN_BUDGET',
    'OPENAI_BASE_URL',
    'OPENAI_API_KEY',
    'OPENAI_MODEL',
    'OPENAI_TIMEOUT_MS',
  ];
  for (const k of pass) if (process.env[k]) env[k] = process.env[k] as string;
  // A whole run on 2 shared cores: a generation may wait for the one model context for long.
  if (provider === 'local-llm') env.LLM_TIMEOUT_MS ??= String(20 * 60_000);
  if (provider === 'openai' && !env.OPENAI_BASE_URL && !env.OPENAI_API_KEY) {
    throw new Error(
      '--provider openai needs OPENAI_BASE_URL (and OPENAI_API_KEY, OPENAI_MODEL) in the environment',
    );
  }
  return env;
}

const metricsFile = (root: string, corpus: string, provider: string) =>
  path.join(root, 'docs/benchmarks', `eval-${corpus}-${provider}.json`);

export function writeProviderMetrics(
  root: string,
  corpus: string,
  provider: EvalProvider,
  metrics: object,
): void {
  const file = metricsFile(root, corpus, provider);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `${JSON.stringify({ corpus, provider, date: new Date().toISOString().slice(0, 10), ...metrics }, null, 2)}\n`,
  );
}

interface ProviderMetrics {
  corpus: string;
  provider: string;
  model: string;
  date: string;
  answerable: number;
  unanswerable: number;
  answerContainsPhrase: number;
  answeredWithCorrectCitation: number;
  citationPrecision: number;
  unanswerableNoCitation: number;
  answerableRefused: number;
  errors?: number;
  ttftP50Ms?: number;
  ttftP95Ms?: number;
  askP50Ms: number;
  askP95Ms: number;
}

const START = '<!-- providers:start -->';
const END = '<!-- providers:end -->';
const f2 = (x: number | undefined) => (typeof x === 'number' && !Number.isNaN(x) ? x.toFixed(2) : 'n/a');
const sec = (ms: number | undefined) =>
  typeof ms === 'number' && !Number.isNaN(ms) ? `${(ms / 1000).toFixed(1)} s` : 'n/a';

/** The providers table (from the metrics files present), put between its markers in `doc`. */
export function renderProviderComparison(root: string, doc: string): string {
  const rows: ProviderMetrics[] = [];
  for (const corpus of ['dev', 'similar'])
    for (const p of PROVIDERS) {
      const file = metricsFile(root, corpus, p);
      if (fs.existsSync(file)) rows.push(JSON.parse(fs.readFileSync(file, 'utf8')) as ProviderMetrics);
    }
  const table = [
    START,
    '## Answer providers side by side',
    '',
    'Same corpus, index and retrieval; only the answer provider differs (`npm run eval -- --provider <p>`).',
    'Times are measured by the client over SSE on this 2-core machine, sequentially: time to the first `delta`',
    'event and to the `done` event. Generative answers are cached per question (`dist/rag-bench/eval-cache`);',
    'the times of a cached answer are those of the run that generated it.',
    '',
    '| corpus | provider | model | expected phrase in answer | right page cited | citation precision | unanswerable declined | answerable refused | first delta p50 / p95 | total p50 / p95 | errors | date |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.corpus} | ${r.provider} | ${r.model} | ${f2(r.answerContainsPhrase)} | ${f2(r.answeredWithCorrectCitation)} | ${f2(
          r.citationPrecision,
        )} | ${f2(r.unanswerableNoCitation)} | ${f2(r.answerableRefused)} | ${sec(r.ttftP50Ms)} / ${sec(r.ttftP95Ms)} | ${sec(
          r.askP50Ms,
        )} / ${sec(r.askP95Ms)} | ${r.errors ?? 0} | ${r.date} |`,
    ),
    '',
    '"Right page cited": answerable items with at least one citation of a page that holds the expected phrase.',
    '"Unanswerable declined": unanswerable items answered without any citation.',
    END,
  ].join('\n');
  const at = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (at >= 0 && end > at) return doc.slice(0, at) + table + doc.slice(end + END.length);
  // First run: after the headline table (before the first "## " section after it).
  const first = doc.indexOf('\n## ');
  return first >= 0 ? `${doc.slice(0, first)}\n\n${table}\n${doc.slice(first)}` : `${doc}\n${table}\n`;
}
