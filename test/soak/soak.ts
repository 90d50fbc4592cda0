// The soak of issue #13: the product as `npm start` runs it (PGlite, its own Temporal dev server,
// the worker in-process; the embedded search engine or Elasticsearch), three accounts indexing at
// once (the dev corpus, the similar corpus, a bucket of malformed files) through cancels followed
// by an immediate re-index, forced re-indexes and deletes during indexing, with an ask every second
// for each account and health and Temporal watched throughout. It collects problems instead of
// failing at the first one, so a report says everything that went wrong in a run.
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { TEMPORAL_UI_PORT_OFFSET } from '@docqa/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createBucket, putMany, s3, S3_KEYS } from '../indexing/support';
import type { HttpResponse, TestClient } from '../support/http';
import { infra, sharedDir, uniqueName } from '../support/infra';
import { minimalPdf } from '../support/pdf';
import { Product, registerAccount, startProduct } from '../support/product';
import { percentile } from '../support/stats';
import { INDEXING_STALL_AFTER_MS } from '../../apps/api/src/health/health.service';
const { freePortPair } = require('../infra/util');

const P = '/api/v1/document_proxy';
/** Longest an ask may take (issue #13). */
export const ASK_LIMIT_MS = 5000;
/** Longest one indexing run may stay open before the soak calls it wedged (DOCQA_SOAK_RUN_LIMIT_SECONDS). */
const RUN_LIMIT_MS = Number(process.env.DOCQA_SOAK_RUN_LIMIT_SECONDS ?? 300) * 1000;
/**
 * Embedder of the soak (DOCQA_SOAK_EMBEDDER): the hashing embedder by default, as in the other
 * suites about indexing mechanics. What the soak tests (engine writes, locks, deadlines,
 * cancellation, slots, health, shutdown) does not depend on the vectors, and with the MiniLM model
 * one dev-corpus run takes minutes on a 2-core machine, leaving no time for the cycles. `minilm`
 * runs it on the semantic model (give it DOCQA_SOAK_RUN_LIMIT_SECONDS=900).
 */
const EMBEDDER = process.env.DOCQA_SOAK_EMBEDDER ?? 'hashing';
/**
 * Options of the product's node process (DOCQA_SOAK_NODE_ARGS, space-separated), e.g.
 * `--cpu-prof --cpu-prof-dir=DIR` to see what held its event loop in a stall.
 */
const NODE_ARGS = (process.env.DOCQA_SOAK_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** Keep the product's log beside the soak log even when nothing went wrong (DOCQA_SOAK_KEEP_LOG=1). */
const KEEP_LOG = process.env.DOCQA_SOAK_KEEP_LOG === '1';
/** The product's INDEXING_STALL_AFTER_MS (a constant of its health check). */
const STALL_AFTER_MS = INDEXING_STALL_AFTER_MS;

export type Engine = 'embedded' | 'elasticsearch';

export interface Corpus {
  name: string;
  /** Files in the bucket, and what each must end as. */
  files: Array<{ key: string; body: Buffer; expect: 'COMPLETE' | 'ERROR' }>;
  questions: string[];
}

export interface SoakOptions {
  engine: Engine;
  /** How long operations are started (the soak then lets every run end and checks the result). */
  seconds: number;
  corpora: Corpus[];
  log?: (line: string) => void;
}

export interface SoakReport {
  engine: Engine;
  problems: string[];
  operations: Record<string, number>;
  runsChecked: number;
  asks: { count: number; byStatus: Record<string, number>; p50Ms: number; p95Ms: number; maxMs: number };
  /** `/health` samples; `down` counts how often each part was named (details in the soak log). */
  health: { samples: number; ok: number; unavailable: number; down: Record<string, number> };
  stuckObservations: number;
  heartbeatTimeouts: number;
  /** The product's own "event loop stalled" warnings: how many, the longest and its busy share. */
  stalls: { count: number; longestMs: number; longestBusy: number };
  /**
   * The product's own log lines of its slowest asks (which step took the time: engine reads, the
   * model, the database) and of its slowest engine reads (what the engine was doing meanwhile).
   */
  slowestAsks: string[];
  slowestReads: string[];
  final: Record<string, unknown>;
  shutdown: { code: number | null; ms: number };
}

/** The product's "event loop stalled for N ms (... held it P% ...)" warnings in its JSON log. */
function stallsIn(logFile: string): SoakReport['stalls'] {
  const out = { count: 0, longestMs: 0, longestBusy: 0 };
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    const m = /event loop stalled for (\d+) ms \(this process's code held it (\d+)%/.exec(line);
    if (!m) continue;
    out.count++;
    if (Number(m[1]) > out.longestMs) {
      out.longestMs = Number(m[1]);
      out.longestBusy = Number(m[2]) / 100;
    }
  }
  return out;
}

/** The `n` slowest of the product's log messages that `pattern` matches (group 1: message, 2: ms). */
function slowestIn(logFile: string, pattern: RegExp, n = 3): string[] {
  const found: Array<{ ms: number; line: string }> = [];
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    const m = pattern.exec(line);
    if (m) found.push({ ms: Number(m[2]), line: m[1] });
  }
  return found
    .sort((a, b) => b.ms - a.ms)
    .slice(0, n)
    .map((a) => a.line);
}

/** "ask: ..., N ms (stage times)": AskService's line per answer. */
const ASK_LINE = /"(ask: [^"]*?, (\d+) ms \([^)"]*\))"/;
/** "embedded search <read> took N ms (...)": the embedded adapter's slow-read warning. */
const SLOW_READ_LINE = /"(embedded search [^"]*? took (\d+) ms \([^)"]*\))"/;

function corpusFiles(dir: string): Array<{ key: string; body: Buffer; expect: 'COMPLETE' }> {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.pdf'))
    .sort()
    .map((f) => ({ key: f, body: fs.readFileSync(path.join(dir, f)), expect: 'COMPLETE' as const }));
}

function questions(dir: string, n: number): string[] {
  return fs
    .readFileSync(path.join(dir, 'qa.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { question: string }).question)
    .slice(0, n);
}

/** The three corpora of the soak. */
export function soakCorpora(): Corpus[] {
  const dev = sharedDir('corpus', 'dev');
  const similar = sharedDir('corpus', 'similar');
  const real = fs.readFileSync(path.join(dev, 'geometry.pdf'));
  const encrypted = fs.readFileSync(path.resolve(__dirname, '../fixtures/indexing/encrypted.pdf'));
  return [
    { name: 'dev', files: corpusFiles(dev), questions: questions(dev, 20) },
    { name: 'similar', files: corpusFiles(similar), questions: questions(similar, 20) },
    {
      name: 'malformed',
      files: [
        { key: 'corrupt.pdf', body: Buffer.from('%PDF-1.4\n1 0 obj << garbage'), expect: 'ERROR' },
        { key: 'not-a-pdf.pdf', body: Buffer.from('MZ this is an executable, not a PDF'), expect: 'ERROR' },
        { key: 'empty.pdf', body: Buffer.alloc(0), expect: 'ERROR' },
        { key: 'truncated.pdf', body: real.subarray(0, Math.floor(real.length / 3)), expect: 'ERROR' },
        { key: 'encrypted.pdf', body: encrypted, expect: 'ERROR' },
        { key: 'scanned.pdf', body: minimalPdf(['']), expect: 'ERROR' },
        { key: 'binary.txt', body: Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00, 0x10]), expect: 'ERROR' },
        { key: 'broken.docx', body: Buffer.from('PK\u0003\u0004 not a package'), expect: 'ERROR' },
        {
          key: 'crane-notes.txt',
          body: Buffer.from('The harbour crane is inspected every spring by the port authority.\n'),
          expect: 'COMPLETE',
        },
        {
          key: 'tides.md',
          body: Buffer.from(
            '# Tides\n\nHigh tide at the north pier comes forty minutes after the south pier.\n',
          ),
          expect: 'COMPLETE',
        },
      ],
      questions: ['When is the harbour crane inspected?', 'When does high tide come at the north pier?'],
    },
  ];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Account {
  corpus: Corpus;
  token: string;
  docSet: string;
  bucket: string;
}

const buckets = new Map<string, Promise<string>>();

/** The corpus's bucket on the local S3 server, uploaded once per test process. */
function bucketOf(corpus: Corpus): Promise<string> {
  let b = buckets.get(corpus.name);
  if (!b) {
    b = (async () => {
      const client = s3();
      const bucket = await createBucket(client, `soak-${corpus.name}`);
      await putMany(client, bucket, corpus.files, 4);
      return bucket;
    })();
    buckets.set(corpus.name, b);
  }
  return b;
}

/** Runs one soak and returns its report (problems empty when every check held). */
export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const log = o.log ?? (() => undefined);
  const problems: string[] = [];
  const problem = (p: string) => {
    problems.push(p);
    log(`PROBLEM ${p}`);
  };
  const operations: Record<string, number> = {};
  const count = (op: string) => (operations[op] = (operations[op] ?? 0) + 1);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `docqa-soak-${o.engine}-`));
  const temporalPort: number = await freePortPair(TEMPORAL_UI_PORT_OFFSET);
  const env: Record<string, string | undefined> = {
    DATA_DIR: dataDir,
    LOG_FILE: path.join(dataDir, 'app.log'),
    HTTPS_PORT: '0',
    HTTP_PORT: '0',
    METRICS_PORT: '0',
    BIND_HOST: '127.0.0.1',
    TEMPORAL_CLI_PATH: infra().temporalCli,
    TEMPORAL_DEV_PORT: String(temporalPort),
    S3_ENDPOINT: infra().s3Endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    S3_REGION: 'us-east-1',
    LOCAL_EMBEDDER: EMBEDDER,
    ...(o.engine === 'elasticsearch'
      ? { ELASTICSEARCH_URL: infra().elasticsearchUrl, SEARCH_INDEX_PREFIX: uniqueName('soak') }
      : {}),
  };

  // Buckets first (uploads are slow on a loaded machine; both engines' soaks read the same ones).
  const buckets: string[] = [];
  for (const corpus of o.corpora) buckets.push(await bucketOf(corpus));
  let product: Product | undefined = await startProduct(env, undefined, NODE_ARGS);
  // A product that dies under the soak says why on its own output (a fatal error, a signal).
  const started = product;
  let shuttingDown = false;
  started.child.once('exit', (code, signal) => {
    if (!shuttingDown)
      problem(`the product exited (code ${code}, signal ${signal}): ${started.output().slice(-3000)}`);
  });
  const c: TestClient = product.client;
  const connection = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
  const temporal = new TemporalClient({ connection });

  const accounts: Account[] = [];
  for (const [i, corpus] of o.corpora.entries())
    accounts.push({
      corpus,
      token: await registerAccount(c, corpus.name),
      docSet: `soak-${corpus.name}`,
      bucket: buckets[i],
    });

  const askMs: number[] = [];
  const askStatus: Record<string, number> = {};
  const health = { samples: 0, ok: 0, unavailable: 0, down: {} as Record<string, number> };
  // The operator's view (metrics port, from the product's log) explains a 503 in the soak log.
  const metricsPort = /Prometheus metrics on http:\/\/[^:]+:(\d+)/.exec(
    fs.readFileSync(env.LOG_FILE!, 'utf8'),
  )?.[1];
  let stuckObservations = 0;
  let heartbeatTimeouts = 0;
  let runsChecked = 0;
  let stopping = false;
  const until = Date.now() + o.seconds * 1000;

  const call = async (what: string, p: Promise<HttpResponse>): Promise<HttpResponse | undefined> => {
    try {
      return await p;
    } catch (err) {
      problem(`${what}: request failed (${(err as Error).message})`);
      return undefined;
    }
  };

  const progressOf = async (a: Account) =>
    (await c.get(`${P}/index/progress/${a.docSet}`, { token: a.token })).body;

  /** Waits until no run of the docset is open; a run open past RUN_LIMIT_MS is a wedge. */
  const waitRunEnd = async (a: Account, what: string): Promise<boolean> => {
    const deadline = Date.now() + RUN_LIMIT_MS;
    for (;;) {
      const p = await progressOf(a).catch(() => undefined);
      if (p && !p.isIndexing) {
        if (p.indexingCount !== 0)
          problem(`${a.corpus.name} ${what}: run ended with ${p.indexingCount} document(s) still INDEXING`);
        return true;
      }
      if (Date.now() > deadline) {
        problem(`${a.corpus.name} ${what}: run still open after ${RUN_LIMIT_MS} ms (${JSON.stringify(p)})`);
        return false;
      }
      await sleep(500);
    }
  };

  /** The last run of the docset ended, and its counts add up to its listing. */
  const checkLastRun = async (a: Account, jobId: string, what: string) => {
    const s = await c.get(`${P}/documents/indexing-summary`, { token: a.token });
    const d = (s.body.docSets as Array<Record<string, any>>).find((x) => x.docSetName === a.docSet);
    const run = d?.lastRun;
    if (!run || run.jobId !== jobId)
      return problem(`${a.corpus.name} ${what}: last run is not ${jobId} (${JSON.stringify(run)})`);
    runsChecked++;
    if (!['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status))
      return problem(`${a.corpus.name} ${what}: run ended ${run.status}`);
    const k = run.counts ?? {};
    if (run.status === 'FAILED') return problem(`${a.corpus.name} ${what}: run FAILED (${run.error})`);
    const ended = (k.completed ?? 0) + (k.failed ?? 0) + (k.cancelled ?? 0) + (k.unchanged ?? 0);
    if (ended !== k.listed)
      problem(
        `${a.corpus.name} ${what}: COMPLETE/ERROR/CANCELLED/unchanged ${ended} != listed ${k.listed} (${JSON.stringify(k)})`,
      );
    if (k.listed !== a.corpus.files.length)
      problem(`${a.corpus.name} ${what}: listed ${k.listed}, the bucket has ${a.corpus.files.length}`);
  };

  const index = async (a: Account, force: boolean): Promise<string | undefined> => {
    const r = await call(
      'POST /index',
      c.post(
        `${P}/index`,
        {
          docSetName: a.docSet,
          credentials: { ...S3_KEYS, bucket: a.bucket },
          indexOptions: { forceReindex: force },
        },
        { token: a.token },
      ),
    );
    if (r?.status !== 202) {
      problem(`${a.corpus.name}: POST /index answered ${r?.status} ${r?.text.slice(0, 200)}`);
      return undefined;
    }
    return r.body.jobId as string;
  };

  const cycles: Array<[string, (a: Account) => Promise<void>]> = [
    [
      'index',
      async (a) => {
        const job = await index(a, false);
        if (job && (await waitRunEnd(a, 'index'))) await checkLastRun(a, job, 'index');
      },
    ],
    [
      'cancel-then-reindex',
      async (a) => {
        const first = await index(a, true);
        if (!first) return;
        await sleep(1000);
        for (let i = 0; i < 2; i++) {
          const r = await call(
            'cancel',
            c.post(`${P}/index/cancel/${a.docSet}`, undefined, { token: a.token }),
          );
          if (r && r.status !== 202 && r.status !== 409)
            problem(`${a.corpus.name}: cancel answered ${r.status} ${r.text.slice(0, 200)}`);
        }
        if (!(await waitRunEnd(a, 'cancelled run'))) return;
        const second = await index(a, false); // at once, as the first recipe
        if (second && (await waitRunEnd(a, 're-index after cancel')))
          await checkLastRun(a, second, 're-index after cancel');
      },
    ],
    [
      'force-reindex',
      async (a) => {
        const job = await index(a, true);
        if (job && (await waitRunEnd(a, 'forced re-index'))) await checkLastRun(a, job, 'forced re-index');
      },
    ],
    [
      'delete-during-indexing',
      async (a) => {
        const job = await index(a, true);
        if (!job) return;
        await sleep(1500);
        const t0 = Date.now();
        const r = await call(
          'DELETE /index/docsets',
          c.delete(`${P}/index/docsets`, { docSetNames: [a.docSet] }, { token: a.token }),
        );
        if (r && r.status !== 200 && r.status !== 403)
          problem(
            `${a.corpus.name}: delete during indexing answered ${r.status} ${r.text.slice(0, 200)} after ${Date.now() - t0} ms`,
          );
        const p = await progressOf(a);
        if (
          r?.status === 200 &&
          (p.isIndexing || p.pendingCount + p.indexingCount + p.completedCount + p.errorCount !== 0)
        )
          problem(`${a.corpus.name}: docset still there after delete (${JSON.stringify(p)})`);
        await waitRunEnd(a, 'after delete');
      },
    ],
  ];

  const accountLoop = async (a: Account, offset: number) => {
    let i = offset;
    while (Date.now() < until && !stopping) {
      const [name, fn] = cycles[i++ % cycles.length];
      count(name);
      log(`${a.corpus.name}: ${name}`);
      await fn(a).catch((err: Error) => problem(`${a.corpus.name} ${name}: ${err.message}`));
    }
    // The last word: a plain run (it picks up whatever a cancel or delete left) that must leave
    // every file in its expected state.
    const job = await index(a, false);
    if (job && (await waitRunEnd(a, 'final run'))) await checkLastRun(a, job, 'final run');
  };

  const asker = async () => {
    let n = 0;
    while (!stopping) {
      const tick = Date.now();
      await Promise.all(
        accounts.map(async (a) => {
          const question = a.corpus.questions[n % a.corpus.questions.length];
          const t0 = Date.now();
          const r = await call(
            'ask',
            c.post(`${P}/ask`, { question, docSetNames: [a.docSet] }, { token: a.token }),
          );
          const ms = Date.now() - t0;
          askMs.push(ms);
          const key = String(r?.status ?? 'error');
          askStatus[key] = (askStatus[key] ?? 0) + 1;
          if (ms > ASK_LIMIT_MS) problem(`${a.corpus.name}: ask took ${ms} ms`);
          // 403: the docset has no COMPLETE document at that moment (deleted, or being re-indexed).
          if (r && r.status !== 200 && r.status !== 403)
            problem(`${a.corpus.name}: ask answered ${r.status} ${r.text.slice(0, 200)}`);
        }),
      );
      n++;
      await sleep(Math.max(0, 1000 - (Date.now() - tick)));
    }
  };

  /**
   * Health must not say ok while a step is stuck. Stuck, in Temporal's own records: an activity
   * that has waited to start for longer than INDEXING_STALL_AFTER_MS. Heartbeat timeouts (a step
   * that neither finished nor heartbeated) are counted too.
   */
  let stuckSince: number | undefined;
  const timedOut = new Set<string>();
  const seconds = (t?: { seconds?: unknown } | null) => (t ? Number(t.seconds ?? 0) * 1000 : 0);
  const watcher = async () => {
    let round = 0;
    while (!stopping) {
      const r = await c.get(`${P}/health`).catch(() => undefined);
      health.samples++;
      if (r?.status === 200) health.ok++;
      else {
        health.unavailable++;
        for (const part of (r?.body?.down as string[] | undefined) ?? ['(no answer)'])
          health.down[part] = (health.down[part] ?? 0) + 1;
        if (metricsPort) {
          const details = await fetch(`http://127.0.0.1:${metricsPort}/health`)
            .then((x) => x.text())
            .catch((err: Error) => err.message);
          log(`health ${r?.status}: ${details}`);
        }
      }
      if (round++ % 3 === 0) {
        let stuck = false;
        try {
          for await (const wf of temporal.workflow.list({ query: `ExecutionStatus = 'Running'` })) {
            const d = await temporal.workflow
              .getHandle(wf.workflowId, wf.runId)
              .describe()
              .catch(() => undefined);
            for (const a of d?.raw.pendingActivities ?? []) {
              // TIMEOUT_TYPE_HEARTBEAT = 4: an attempt that neither finished nor heartbeated in time
              if (a.lastFailure?.timeoutFailureInfo?.timeoutType === 4)
                timedOut.add(`${wf.workflowId}/${a.activityId}/${a.attempt}`);
              // PENDING_ACTIVITY_STATE_SCHEDULED = 1: waiting for a worker slot since it became due
              const due = seconds(a.nextAttemptScheduleTime) || seconds(a.scheduledTime);
              if (a.state === 1 && due && Date.now() - due > STALL_AFTER_MS) stuck = true;
            }
          }
        } catch {
          // Temporal busy: judged at the next round
        }
        if (stuck) {
          stuckObservations++;
          stuckSince ??= Date.now();
          // The stall rule needs STALL_AFTER_MS without progress, plus a probe: allow it that long.
          if (r?.status === 200 && Date.now() - stuckSince > STALL_AFTER_MS + 10_000)
            problem('health said ok while an activity had waited to start for over INDEXING_STALL_AFTER_MS');
        } else stuckSince = undefined;
      }
      await sleep(2000);
    }
    heartbeatTimeouts = timedOut.size;
  };

  const background = [asker(), watcher()];
  await Promise.all(accounts.map((a, i) => accountLoop(a, i)));
  stopping = true;
  await Promise.all(background);

  // Every file ended where it should; the similar corpus is fully indexed.
  const final: Record<string, unknown> = {};
  for (const a of accounts) {
    const p = await progressOf(a);
    final[a.corpus.name] = p;
    const complete = a.corpus.files.filter((f) => f.expect === 'COMPLETE').length;
    const error = a.corpus.files.length - complete;
    if (
      p.completedCount !== complete ||
      p.errorCount !== error ||
      p.pendingCount !== 0 ||
      p.indexingCount !== 0
    )
      problem(
        `${a.corpus.name}: final state ${JSON.stringify(p)}, expected ${complete} COMPLETE and ${error} ERROR`,
      );
  }
  const finalHealth = await c.get(`${P}/health`);
  if (finalHealth.status !== 200) problem(`health after the soak: ${finalHealth.status} ${finalHealth.text}`);

  await connection.close();
  shuttingDown = true;
  const shutdown = await product.stop('SIGINT', 45_000);
  product = undefined;
  if (shutdown.code !== 0 || shutdown.ms > 30_000)
    problem(`Ctrl-C: exit ${shutdown.code} after ${shutdown.ms} ms`);
  const stalls = stallsIn(path.join(dataDir, 'app.log'));
  const slowestAsks = slowestIn(path.join(dataDir, 'app.log'), ASK_LINE);
  const slowestReads = slowestIn(path.join(dataDir, 'app.log'), SLOW_READ_LINE);
  if (problems.length > 0 || stalls.count > 0 || KEEP_LOG) {
    // the product's own log explains a problem or a stall (what ran around it): kept beside the soak log
    const kept = `${dataDir}.app.log`;
    fs.copyFileSync(path.join(dataDir, 'app.log'), kept);
    log(`the product's log: ${kept}`);
  }
  fs.rmSync(dataDir, { recursive: true, force: true });

  const sorted = [...askMs].sort((x, y) => x - y);
  return {
    engine: o.engine,
    problems,
    operations,
    runsChecked,
    asks: {
      count: askMs.length,
      byStatus: askStatus,
      p50Ms: sorted.length ? percentile(sorted, 50) : 0,
      p95Ms: sorted.length ? percentile(sorted, 95) : 0,
      maxMs: sorted[sorted.length - 1] ?? 0,
    },
    health,
    stuckObservations,
    heartbeatTimeouts,
    stalls,
    slowestAsks,
    slowestReads,
    final,
    shutdown,
  };
}
