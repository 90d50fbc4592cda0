/* Load benchmark (issue #10): autocannon against POST /ask (local provider: the embedder of
 * LOCAL_EMBEDDER: auto, bge-small on a fresh database; extractive answers) and GET /documents, each at
 * concurrency 32 for 60 s, on a server this script starts (the real API with its in-process worker;
 * Postgres and Temporal from test/infra, the embedded search engine; everything on 127.0.0.1) with a
 * seeded docset. Reports requests/s, latency p50/p95/p99, errors and non-2xx, and the server's
 * memory sampled through the run (RSS and V8 heap every BENCH_SAMPLE_SECONDS, default 5): the mean
 * of each quarter of the run and the slope of its second half tell a plateau from a leak.
 *   npm run bench:load
 *   BENCH_SECONDS=20 BENCH_CONNECTIONS=32 BENCH_DOCS=40 npm run bench:load
 *   BENCH_ENDPOINTS=ask BENCH_SECONDS=900 BENCH_OUT=bench/load/results-ask-15min.json npm run bench:load
 *   BENCH_CORPUS=similar BENCH_ENDPOINTS=ask,search BENCH_CONNECTIONS=8 npm run bench:load
 * BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of the server per endpoint run
 * (<dir>/<endpoint>.cpuprofile, load only: no seeding or warm-up), for Chrome DevTools or a script.
 * BENCH_CORPUS names a corpus under the shared directory (DOCQA_SHARED_DIR/corpus/<name>): its PDFs
 * are seeded instead of the synthetic handbooks and each connection cycles through its questions
 * (qa.jsonl, those without history). `search` in BENCH_ENDPOINTS loads POST /search with them too.
 * Not part of npm test. Writes bench/load/results.json (or BENCH_OUT) and prints a Markdown table.
 * autocannon connects over TLS without verifying the app's self-signed certificate (loopback only). */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Session } from 'node:inspector/promises';
import { Client as PgClient } from 'pg';
import { loadConfig } from '@docqa/common';
import { EMBEDDER, Embedder } from '@docqa/embeddings';
import { createApi } from '../../apps/api/src/bootstrap/create-api';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { TestClient } from '../../test/support/http';
import { closeCorpusExtractor, seedCorpus, seedDocuments } from '../../test/support/seed';
import { sharedDir } from '../../test/support/infra';
import type { TestApp } from '../../test/support/app';

const ROOT = path.resolve(__dirname, '../../../..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DOCS = Number(process.env.BENCH_DOCS ?? 40);
const DOCSET = 'load';
const ENDPOINTS = (process.env.BENCH_ENDPOINTS ?? 'ask,documents').split(',');
const CORPUS = process.env.BENCH_CORPUS;
const SAMPLE_SECONDS = Number(process.env.BENCH_SAMPLE_SECONDS ?? 5);
const OUT = path.resolve(ROOT, process.env.BENCH_OUT ?? 'bench/load/results.json');
const CPU_PROFILE = process.env.BENCH_CPU_PROFILE;

type Stoppable = { stop(): Promise<void> };
const log = (s: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}`);
const infra = <T>(name: string): T => require(path.join(ROOT, 'test/infra', `${name}.js`)) as T;
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const rssMb = () => mb(process.memoryUsage().rss);

/** One memory sample of the server process, `s` seconds after the first load run started. */
interface MemorySample {
  s: number;
  rssMb: number;
  heapUsedMb: number;
  externalMb: number;
}

/** Samples the server's memory every SAMPLE_SECONDS until stopped. */
function sampleMemory(): { stop(): MemorySample[] } {
  const t0 = Date.now();
  const samples: MemorySample[] = [];
  const take = () => {
    const m = process.memoryUsage();
    samples.push({
      s: Math.round((Date.now() - t0) / 1000),
      rssMb: mb(m.rss),
      heapUsedMb: mb(m.heapUsed),
      externalMb: mb(m.external),
    });
  };
  take();
  const timer = setInterval(take, SAMPLE_SECONDS * 1000);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/**
 * Mean RSS and heap of each quarter of the run, and the least-squares slope of RSS (MB per minute)
 * over its second half: a server that has reached its working set is flat there, a leak is not.
 */
function memorySummary(samples: readonly MemorySample[]) {
  const end = samples[samples.length - 1]?.s ?? 0;
  const mean = (xs: number[]) =>
    xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10 : NaN;
  const quarters = [0, 1, 2, 3].map((q) => {
    const inQ = samples.filter(
      (x) => x.s >= (q * end) / 4 && (q === 3 ? x.s <= end : x.s < ((q + 1) * end) / 4),
    );
    return { rssMb: mean(inQ.map((x) => x.rssMb)), heapUsedMb: mean(inQ.map((x) => x.heapUsedMb)) };
  });
  const half = samples.filter((x) => x.s >= end / 2);
  const mx = half.reduce((a, x) => a + x.s, 0) / (half.length || 1);
  const my = half.reduce((a, x) => a + x.rssMb, 0) / (half.length || 1);
  const sxx = half.reduce((a, x) => a + (x.s - mx) ** 2, 0);
  const sxy = half.reduce((a, x) => a + (x.s - mx) * (x.rssMb - my), 0);
  const slope = sxx > 0 ? Math.round((sxy / sxx) * 60 * 100) / 100 : NaN;
  return { quarters, secondHalfRssSlopeMbPerMin: slope, peakRssMb: Math.max(...samples.map((x) => x.rssMb)) };
}

const TOPICS = [
  'retention',
  'replication',
  'quotas',
  'backups',
  'encryption',
  'failover',
  'indexing',
  'billing',
];
function pages(i: number): string[] {
  return Array.from({ length: 3 }, (_, p) => {
    const t = TOPICS[(i + p) % TOPICS.length];
    return (
      `Handbook ${i}, page ${p + 1}: ${t}. The ${t} policy keeps ${10 + i} copies for ${30 + p} days. ` +
      `Operators review ${t} settings weekly and record changes in the change log. `.repeat(6)
    );
  });
}

interface Result {
  endpoint: string;
  seconds: number;
  connections: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  /**
   * CPU time of this process (the server; the load generator is another process) per response, in
   * ms: what an optimisation saves, less sensitive than latency to other load on a shared host.
   */
  serverCpuMsPerRequest: number;
}

// The load generator runs in its own process (autocannon's API), so it neither shares the server's
// event loop nor counts in its RSS. p95 is computed from every response time (autocannon's summary
// has p90 and p97.5, not p95).
const GENERATOR = `
const autocannon = require(process.argv[1]);
const o = JSON.parse(process.argv[2]);
const times = [];
const inst = autocannon(o, (err, r) => {
  if (err) { console.error(err); process.exit(1); }
  times.sort((a, b) => a - b);
  const pct = (q) => times.length ? times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] : NaN;
  process.stdout.write(JSON.stringify({ requests: r.requests.total, rps: r.requests.average,
    p50: pct(0.5), p95: pct(0.95), p99: pct(0.99), max: times[times.length - 1],
    errors: r.errors, timeouts: r.timeouts, non2xx: r.non2xx, statusCodes: r.statusCodeStats }));
});
inst.on('response', (_c, _status, _bytes, rt) => times.push(rt));
`;

async function load(
  name: string,
  url: string,
  o: { method: 'GET' | 'POST'; token: string; body?: unknown; bodies?: unknown[] },
): Promise<Result> {
  log(`${name}: ${CONNECTIONS} connections for ${SECONDS} s`);
  const profiler = CPU_PROFILE ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  const opts = {
    url,
    method: o.method,
    connections: CONNECTIONS,
    duration: SECONDS,
    timeout: 30,
    headers: {
      authorization: `Bearer ${o.token}`,
      ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: o.body !== undefined ? JSON.stringify(o.body) : undefined,
    // Each connection sends these bodies in turn, then starts over.
    requests: o.bodies?.map((b) => ({ method: o.method, body: JSON.stringify(b) })),
  };
  const cpu0 = process.cpuUsage();
  // Async: the server in this process must keep serving while the generator runs.
  const { stdout: out } = await promisify(execFile)(
    process.execPath,
    ['-e', GENERATOR, require.resolve('autocannon'), JSON.stringify(opts)],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const cpu = process.cpuUsage(cpu0);
  if (profiler && CPU_PROFILE) {
    const { profile } = await profiler.post('Profiler.stop');
    fs.mkdirSync(CPU_PROFILE, { recursive: true });
    const file = path.join(CPU_PROFILE, `${name.replace(/\W+/g, '-').replace(/^-|-$/g, '')}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    profiler.disconnect();
    log(`CPU profile ${file}`);
  }
  const r = JSON.parse(out);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    endpoint: name,
    seconds: SECONDS,
    connections: CONNECTIONS,
    requests: r.requests,
    requestsPerSecond: round(r.rps),
    latencyMs: { p50: round(r.p50), p95: round(r.p95), p99: round(r.p99), max: round(r.max) },
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    serverCpuMsPerRequest: r.requests ? round((cpu.user + cpu.system) / 1000 / r.requests) : NaN,
  };
}

async function main() {
  const started: Stoppable[] = [];
  try {
    log('starting Postgres and Temporal (test/infra); embedded search engine');
    const [pg, temporal] = await Promise.all([
      infra<{ startPostgres(): Promise<Stoppable & { url: string }> }>('postgres').startPostgres(),
      infra<{ startTemporal(): Promise<Stoppable & { address: string }> }>('temporal').startTemporal(),
    ]);
    started.push(pg, temporal);
    const admin = new PgClient({ connectionString: pg.url });
    await admin.connect();
    await admin.query('CREATE DATABASE bench_load');
    await admin.end();
    const dbUrl = new URL(pg.url);
    dbUrl.pathname = '/bench_load';

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-load-'));
    const cfg = loadConfig({
      NODE_ENV: 'production',
      // BENCH_LOG_LEVEL=info keeps each ask's step times (its `ask:` line) in the log file.
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      LOG_FILE: path.join(dataDir, 'bench.log'),
      DATA_DIR: dataDir,
      HTTPS_PORT: '0',
      HTTP_PORT: '0',
      METRICS_PORT: '0',
      BIND_HOST: '127.0.0.1',
      APP_SECRET: 'bench-secret-0123456789abcdef0123456789abcdef',
      DATABASE_URL: dbUrl.toString(),
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `bench-load-${randomUUID().slice(0, 8)}`,
    });
    const api = await createApi(cfg, [WorkerModule]);
    started.unshift({ stop: () => api.close() });
    const base = `https://localhost:${api.httpsPort}`;
    const client = new TestClient(base, api.tls.caFile);
    started.unshift({ stop: () => client.close() });

    const password = `pw-${randomUUID()}`;
    const reg = await client.post('/api/v1/users', {
      user: {
        email: `load-${randomUUID().slice(0, 8)}@example.com`,
        password,
        password_confirmation: password,
        name: 'Load',
      },
    });
    if (reg.status !== 200) throw new Error(`register: ${reg.status} ${reg.text}`);
    const token = reg.body.user.api_tokens[0].token as string;
    const db = new PgClient({ connectionString: cfg.database.url });
    await db.connect();
    const { rows } = await db.query('SELECT account_id FROM api_tokens WHERE id = $1', [
      reg.body.user.api_tokens[0].id,
    ]);
    await db.end();
    const accountId = Number(rows[0].account_id);
    const app = { api, cfg } as unknown as TestApp;
    const corpusDir = CORPUS ? sharedDir('corpus', CORPUS) : undefined;
    const seeded = corpusDir
      ? await seedCorpus(
          app,
          accountId,
          DOCSET,
          fs.readdirSync(corpusDir).filter((f) => f.endsWith('.pdf')),
          corpusDir,
        ).finally(() => closeCorpusExtractor())
      : await seedDocuments(
          app,
          accountId,
          Array.from({ length: DOCS }, (_, i) => ({
            docSetName: DOCSET,
            fileName: `handbook-${i}.txt`,
            pages: pages(i),
          })),
        );
    log(`log file ${cfg.core.logFile}`);
    log(`seeded ${seeded.length} documents, ${seeded.reduce((a, d) => a + d.chunks, 0)} chunks`);
    const questions = corpusDir
      ? fs
          .readFileSync(path.join(corpusDir, 'qa.jsonl'), 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as { question: string; pastMessages?: unknown[] })
          .filter((q) => !q.pastMessages?.length)
          .map((q) => ({ question: q.question, docSetNames: [DOCSET] }))
      : [{ question: 'How many days does the retention policy keep copies?', docSetNames: [DOCSET] }];

    // Warm-up (every question once) and a sanity check of both requests.
    const ask = questions[0];
    for (const q of questions) {
      const a = await client.post('/api/v1/document_proxy/ask', q, { token });
      if (a.status !== 200) throw new Error(`warm-up: ask ${a.status}`);
    }
    const d0 = await client.get(`/api/v1/document_proxy/documents?docSetName=${DOCSET}`, { token });
    if (d0.status !== 200) throw new Error(`warm-up: documents ${d0.status}`);
    global.gc?.();
    const rssBefore = rssMb();
    log(`RSS before: ${rssBefore} MB`);

    const memory = sampleMemory();
    const results: Result[] = [];
    if (ENDPOINTS.includes('ask'))
      results.push(
        await load('POST /ask', `${base}/api/v1/document_proxy/ask`, {
          method: 'POST',
          token,
          body: ask,
          bodies: questions.length > 1 ? questions : undefined,
        }),
      );
    // Opt-in (BENCH_ENDPOINTS=ask,search): the same questions as /search queries.
    if (ENDPOINTS.includes('search')) {
      const searches = questions.map((q) => ({ query: q.question, docSetNames: q.docSetNames }));
      results.push(
        await load('POST /search', `${base}/api/v1/document_proxy/search`, {
          method: 'POST',
          token,
          body: searches[0],
          bodies: searches.length > 1 ? searches : undefined,
        }),
      );
    }
    if (ENDPOINTS.includes('documents'))
      results.push(
        await load('GET /documents', `${base}/api/v1/document_proxy/documents?docSetName=${DOCSET}`, {
          method: 'GET',
          token,
        }),
      );
    const samples = memory.stop();
    const summary = memorySummary(samples);
    const rssAfter = rssMb();
    global.gc?.();
    const rssAfterGc = rssMb();
    log(`RSS after: ${rssAfter} MB (${rssAfterGc} MB after gc)`);

    const out = {
      date: new Date().toISOString(),
      host: { cpus: os.cpus().length, loadavg: os.loadavg(), node: process.version },
      setup: {
        corpus: CORPUS ?? 'synthetic',
        documents: seeded.length,
        questions: questions.length,
        engine: 'embedded',
        provider: 'local',
        embedder: api.app.get<Embedder>(EMBEDDER).modelName,
        allocator: process.env.LD_PRELOAD?.includes('jemalloc') ? 'jemalloc' : 'system malloc',
      },
      rssMb: { before: rssBefore, after: rssAfter, afterGc: rssAfterGc },
      memory: { ...summary, sampleSeconds: SAMPLE_SECONDS, samples },
      results,
    };
    fs.writeFileSync(OUT, JSON.stringify(out, null, 2) + '\n');
    console.log(
      '| endpoint | conn | s | requests | req/s | p50 ms | p95 ms | p99 ms | max ms | errors | timeouts | non-2xx | server CPU ms/req |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const r of results)
      console.log(
        `| ${r.endpoint} | ${r.connections} | ${r.seconds} | ${r.requests} | ${r.requestsPerSecond} | ${r.latencyMs.p50} | ${r.latencyMs.p95} | ${r.latencyMs.p99} | ${r.latencyMs.max} | ${r.errors} | ${r.timeouts} | ${r.non2xx} | ${r.serverCpuMsPerRequest} |`,
      );
    console.log(`\nServer RSS: ${rssBefore} MB before, ${rssAfter} MB after (${rssAfterGc} MB after gc).`);
    console.log(
      `Memory by quarter of the run (RSS / heap used, MB): ${summary.quarters.map((q) => `${q.rssMb} / ${q.heapUsedMb}`).join(', ')}; ` +
        `RSS slope over the second half ${summary.secondHalfRssSlopeMbPerMin} MB/min; peak ${summary.peakRssMb} MB.`,
    );
    const bad = results.filter((r) => r.errors || r.timeouts || r.non2xx);
    if (bad.length) {
      console.error(`FAILED: errors on ${bad.map((r) => r.endpoint).join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    for (const s of started) await s.stop().catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
