import { Client as TemporalClient, Connection } from '@temporalio/client';
import { TEMPORAL_UI_PORT_OFFSET } from '@docqa/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FakeGraph, startFakeGraph } from '../support/fake-graph';
import { createTestDatabase, infra, uniqueName } from '../support/infra';
import { Product, registerAccount, startProduct } from '../support/product';
import { EMBEDDER_TUNING_VARS, passEnv } from '../support/tuning-env';
import { HistoryTimeline, historyTimeline } from './history-timeline';
import { fillLibrary } from './large-library';
import { INDEXING_CHILDREN_PER_RUN } from '../../libs/indexing/src/api/indexing-workflow.client';
const { freePort, freePortPair } = require('../infra/util');

const P = '/api/v1/document_proxy';

/** Engines the product runs on in a benchmark. */
export type BenchEngine = 'embedded' | 'elasticsearch';

export interface LibraryBenchOptions {
  files: number;
  folders?: number;
  /**
   * `embedded`: the product's defaults as `npm start` runs them (PGlite, a Temporal dev server it
   * spawns with its SQLite file in the data dir, the embedded search engine). `elasticsearch`: the
   * production-like engines of test/infra (a Postgres server, the Temporal dev server,
   * Elasticsearch 8.14).
   */
  engine: BenchEngine;
  window: number;
  embedder: 'minilm' | 'hashing';
  /** Stop indexing (cancel the run) after this long; what completed is reported. */
  timeoutMs: number;
  /** Cancel the run once listing and planning are done. */
  listingOnly?: boolean;
  /** Options of the product's node process, e.g. `--cpu-prof --cpu-prof-dir=DIR` to profile it. */
  nodeArgs?: string[];
  log: (s: string) => void;
}

/** One RSS sample: seconds since the product was up, MiB of its node process and of its tree. */
export type RssSample = [seconds: number, nodeMb: number, treeMb: number];
/** One heap sample from the product's /metrics: seconds since up, MiB of JS heap used and of external memory. */
/** ... and the embedded engine's index maintenance so far (docqa_search_maintenance_duration_seconds). */
export type HeapSample = [
  seconds: number,
  heapUsedMb: number,
  externalMb: number,
  maintenanceRuns: number,
  maintenanceSeconds: number,
];

export interface LibraryBenchResult {
  engine: BenchEngine;
  /** The product's malloc, as its start banner says (jemalloc where installed). */
  allocator: string;
  files: number;
  folders: number;
  window: number;
  childrenPerRun: number;
  embedder: string;
  /** check-source: the connector pages through the whole library. */
  listMs: number;
  /** POST /index until every file is a PENDING document (the run listed and planned). */
  listAndPlanMs: number | null;
  /** POST /index until no run is open (null: stopped at the timeout or after planning). */
  indexMs: number | null;
  /** Documents COMPLETE when the measurement stopped, and the time it took. */
  completed: number;
  completedMs: number;
  filesPerSec: number;
  statusCounts: Record<string, number>;
  distinctSourceIds: number;
  runStatus: string;
  runCounters: Record<string, number>;
  /** Executions of the docset workflow chain (continue-as-new) and their largest history. */
  runs: number;
  maxHistoryLength: number;
  maxHistoryBytes: number;
  /** Largest history among a sample of per-document child workflows. */
  maxChildHistoryLength: number;
  peakNodeRssMb: number;
  peakTreeRssMb: number;
  /** Node process RSS: peak over the first and the last quarter of the indexing time (flat or growing). */
  rssFirstQuarterMb: number;
  rssLastQuarterMb: number;
  /** Every 10 s: seconds since start, node MiB, tree MiB. */
  rss: RssSample[];
  /**
   * Every 10 s from the product's /metrics (nodejs_heap_size_used_bytes, nodejs_external_memory_bytes):
   * with the RSS, tells growth of the JS heap from native memory (the engines, the allocator).
   */
  heap: HeapSample[];
  /** The embedded engine's index maintenance by what started it (runs, seconds), at the last sample. */
  maintenanceByTrigger: Record<string, { runs: number; seconds: number }>;
  /** Freed native memory given back after maintenance runs (docqa_native_memory_release_duration_seconds). */
  memoryReleases: { runs: number; seconds: number };
  loadAverage: { start: number[]; end: number[] };
  /**
   * CPU seconds the product's process tree spent from POST /index to the end of the measurement,
   * by command (node: API + worker + PGlite + embedded engine; temporal: the dev server the
   * embedded defaults spawn). Less sensitive than wall time to the other load on a shared machine.
   * With Elasticsearch, Temporal, Postgres and Elasticsearch are test infrastructure, not counted.
   */
  cpuSeconds: Record<string, number>;
  /** Milliseconds of product-tree CPU per COMPLETE document. */
  cpuMsPerFile: number;
  /**
   * CPU seconds of the product's node process by thread name over the same span (`node`: the main
   * thread, JavaScript and PGlite's WebAssembly; `lance-cpu`/`tokio-runtime-w`: the embedded search
   * engine; `libuv-worker`: file system and crypto; ...), to tell where its CPU goes.
   */
  nodeThreadCpuSeconds: Record<string, number>;
  /** Where a child's time goes, from a sample of 200 child histories and the docset runs' histories. */
  timeline: HistoryTimeline;
}

function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

/** CPU seconds of each thread of one process, summed by thread name. */
function threadCpuSeconds(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out[name] = (out[name] ?? 0) + (Number(f[11]) + Number(f[12])) / 100;
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch {
    // the process ended meanwhile
  }
  return out;
}

/** Differences b - a per key, rounded to 0.1. */
function cpuDelta(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(b).map(([k, v]) => [k, Math.round((v - (a[k] ?? 0)) * 10) / 10]));
}

/** CPU seconds of the process and of each descendant, by command name (node, temporal, ...). */
function treeCpuSeconds(pid: number, out: Record<string, number> = {}): Record<string, number> {
  let name = 'other';
  try {
    name = path.basename(fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
  } catch {
    return out;
  }
  out[name] = (out[name] ?? 0) + cpuSeconds(pid);
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const kids = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const kid of kids ? kids.split(/\s+/).map(Number) : []) treeCpuSeconds(kid, out);
    }
  } catch {
    // the process ended meanwhile
  }
  return out;
}

/** The process and its descendants (PGlite runs in-process; the Temporal dev server is a child). */
function treeRssKb(pid: number): number {
  let total = rssKb(pid);
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const kids = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const kid of kids ? kids.split(/\s+/).map(Number) : []) total += treeRssKb(kid);
    }
  } catch {
    // the process ended meanwhile
  }
  return total;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (kb: number) => Math.round(kb / 1024);

/**
 * Indexes a synthetic SharePoint library of `files` tiny text files with the product as a user runs
 * it (`npm start` in a child process, MSAL and the Graph client against the local Graph stand-in)
 * and measures listing, planning and indexing rates, Temporal history sizes and the RSS of the
 * product over time.
 */
export async function benchLibrary(o: LibraryBenchOptions): Promise<LibraryBenchResult> {
  const log = o.log;
  const folders = o.folders ?? Math.max(1, Math.ceil(o.files / 1000));
  const graph: FakeGraph = await startFakeGraph({ pageSize: 999 });
  fillLibrary(graph, o.files, folders);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `docqa-bench-library-${o.engine}-`));
  const i = infra();
  const temporalPort =
    o.engine === 'embedded' ? ((await freePortPair(TEMPORAL_UI_PORT_OFFSET)) as number) : undefined;
  const metricsPort = (await freePort()) as number;
  const env: Record<string, string | undefined> = {
    DATA_DIR: dataDir,
    LOG_FILE: path.join(dataDir, 'app.log'),
    LOG_LEVEL: 'warn',
    HTTPS_PORT: '0',
    HTTP_PORT: '0',
    // a known port: the heap samples read /metrics
    METRICS_PORT: String(metricsPort),
    BIND_HOST: '127.0.0.1',
    APP_SECRET: 'bench-secret-0123456789abcdef0123456789abcdef',
    TEMPORAL_CLI_PATH: i.temporalCli,
    GRAPH_BASE_URL: graph.graphBaseUrl,
    MS_AUTHORITY_HOST: graph.authorityHost,
    SOURCE_CA_FILE: graph.caFile,
    INDEXING_CONCURRENCY: String(o.window),
    LOCAL_EMBEDDER: o.embedder,
    // the embedder's and the allocator's tuning, to measure a setting against the default
    ...passEnv([...EMBEDDER_TUNING_VARS, 'MALLOC_MMAP_THRESHOLD_', 'MALLOC_CONF']),
    ...(o.engine === 'embedded'
      ? { TEMPORAL_DEV_PORT: String(temporalPort) }
      : {
          DATABASE_URL: await createTestDatabase(),
          TEMPORAL_ADDRESS: i.temporalAddress,
          TEMPORAL_TASK_QUEUE: uniqueName('bench-library'),
          ELASTICSEARCH_URL: i.elasticsearchUrl,
          SEARCH_INDEX_PREFIX: uniqueName('bench'),
        }),
  };
  const loadStart = os.loadavg().map((x) => Math.round(x * 10) / 10);
  let product: Product | undefined;
  let temporal: Connection | undefined;
  const samples: RssSample[] = [];
  const heap: HeapSample[] = [];
  const maintenanceByTrigger: Record<string, { runs: number; seconds: number }> = {};
  const memoryReleases = { runs: 0, seconds: 0 };
  let sampler: NodeJS.Timeout | undefined;
  let heapSampler: NodeJS.Timeout | undefined;
  try {
    product = await startProduct(env, undefined, o.nodeArgs);
    const pid = product.pid;
    const up = Date.now();
    sampler = setInterval(() => {
      samples.push([Math.round((Date.now() - up) / 1000), mb(rssKb(pid)), mb(treeRssKb(pid))]);
    }, 1000);
    heapSampler = setInterval(() => {
      const at = Math.round((Date.now() - up) / 1000);
      fetch(`http://127.0.0.1:${metricsPort}/metrics`)
        .then((r) => r.text())
        .then((text) => {
          const value = (name: string) =>
            Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
          // the maintenance histogram's count and sum by trigger (every series carries one), read once
          const runs: Record<string, number> = {};
          const seconds: Record<string, number> = {};
          for (const m of text.matchAll(
            /^docqa_search_maintenance_duration_seconds_(count|sum)\{[^}]*trigger="(\w+)"[^}]*\} (\S+)$/gm,
          ))
            (m[1] === 'count' ? runs : seconds)[m[2]] = Number(m[3]);
          const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
          heap.push([
            at,
            mb(value('nodejs_heap_size_used_bytes') / 1024),
            mb(value('nodejs_external_memory_bytes') / 1024),
            sum(runs),
            Math.round(sum(seconds) * 10) / 10,
          ]);
          memoryReleases.runs = value('docqa_native_memory_release_duration_seconds_count') || 0;
          memoryReleases.seconds =
            Math.round((value('docqa_native_memory_release_duration_seconds_sum') || 0) * 100) / 100;
          for (const trigger of Object.keys(runs))
            maintenanceByTrigger[trigger] = {
              runs: runs[trigger],
              seconds: Math.round((seconds[trigger] ?? 0) * 10) / 10,
            };
        })
        .catch(() => undefined);
    }, 10_000);
    const c = product.client;
    const token = await registerAccount(c, 'bench');
    const credentials = {
      tenantId: graph.app.tenantId,
      clientId: graph.app.clientId,
      clientSecret: graph.app.clientSecret,
      siteId: graph.siteId,
      driveId: graph.driveId,
      folderPath: '/Library',
    };
    const docSetName = 'library';

    let t0 = Date.now();
    const check = await c.post(
      `${P}/index/check-source`,
      { docSetName, sourceType: 'SHAREPOINT', credentials },
      { token },
    );
    if (check.status !== 200 || check.body.sourceFileCount !== o.files)
      throw new Error(`check-source: ${check.status} ${check.text}`);
    const listMs = Date.now() - t0;
    log(`${o.engine}: listed ${o.files} files in ${folders} folders in ${listMs} ms`);

    t0 = Date.now();
    const cpuAtStart = treeCpuSeconds(pid);
    const threadsAtStart = threadCpuSeconds(pid);
    const started = await c.post(
      `${P}/index`,
      { docSetName, sourceType: 'SHAREPOINT', credentials },
      { token },
    );
    if (started.status !== 202) throw new Error(`POST /index: ${started.status} ${started.text}`);
    const startedAt = Date.now();
    let listAndPlanMs: number | null = null;
    let indexMs: number | null = null;
    let lastLog = 0;
    let cancelled = false;
    let progress: Record<string, number | boolean> = {};
    for (;;) {
      const p = await c.get(`${P}/index/progress/${docSetName}`, { token }).catch(() => undefined);
      if (p?.status === 200) {
        progress = p.body;
        const planned =
          Number(progress.pendingCount) +
          Number(progress.indexingCount) +
          Number(progress.completedCount) +
          Number(progress.errorCount);
        if (listAndPlanMs === null && planned >= o.files) {
          listAndPlanMs = Date.now() - t0;
          log(`${o.engine}: listed and planned in ${listAndPlanMs} ms`);
          if (o.listingOnly && !cancelled) {
            cancelled = true;
            await c.post(`${P}/index/cancel/${docSetName}`, {}, { token });
          }
        }
        if (!progress.isIndexing) {
          if (!cancelled) indexMs = Date.now() - t0;
          break;
        }
      }
      if (Date.now() - lastLog > 30_000) {
        lastLog = Date.now();
        const rss = samples.at(-1);
        log(
          `${o.engine}: ${Math.round((Date.now() - t0) / 1000)} s ${JSON.stringify(progress)} rss ${rss?.[1]}/${rss?.[2]} MB heap ${heap.at(-1)?.[1]}/${heap.at(-1)?.[2]} MB maintenance ${heap.at(-1)?.[3]} runs ${heap.at(-1)?.[4]} s load ${os.loadavg()[0].toFixed(1)}`,
        );
      }
      if (!cancelled && Date.now() - startedAt > o.timeoutMs) {
        log(`${o.engine}: stopping at the ${o.timeoutMs} ms limit`);
        cancelled = true;
        await c.post(`${P}/index/cancel/${docSetName}`, {}, { token });
      }
      await sleep(2000);
    }
    const completedMs = indexMs ?? Date.now() - t0;
    const cpuUsed = cpuDelta(cpuAtStart, treeCpuSeconds(pid));
    // Threads that ended meanwhile take their CPU with them: a lower bound per name.
    const nodeThreadCpu = cpuDelta(threadsAtStart, threadCpuSeconds(pid));
    const summary = await c.get(`${P}/documents/indexing-summary`, { token });
    const d = (summary.body.docSets as Array<Record<string, any>>).find((x) => x.docSetName === docSetName);
    const completed = Number(d?.completedCount ?? 0);
    log(`${o.engine}: ${completed} COMPLETE in ${completedMs} ms (${JSON.stringify(d?.lastRun?.counts)})`);

    temporal = await Connection.connect({
      address: o.engine === 'embedded' ? `127.0.0.1:${temporalPort}` : i.temporalAddress,
    });
    const tc = new TemporalClient({ connection: temporal });
    let runs = 0;
    let maxHistoryLength = 0;
    let maxHistoryBytes = 0;
    // One account per product (embedded) or per benchmark process (the test Temporal server).
    for await (const w of tc.workflow.list({
      query: `WorkflowType = 'indexDocsetWorkflow' AND DocqaDocSetName = '${docSetName}'`,
    })) {
      runs++;
      maxHistoryLength = Math.max(maxHistoryLength, w.historyLength);
      maxHistoryBytes = Math.max(maxHistoryBytes, w.historySize ?? 0);
    }
    let maxChildHistoryLength = 0;
    let sampled = 0;
    for await (const w of tc.workflow.list({
      query: `WorkflowType = 'indexDocumentWorkflow' AND DocqaDocSetName = '${docSetName}'`,
    })) {
      maxChildHistoryLength = Math.max(maxChildHistoryLength, w.historyLength);
      if (++sampled >= 200) break;
    }
    const timeline = await historyTimeline(tc, docSetName);
    const end = samples.length ? samples.at(-1)![0] : 0;
    const quarter = (from: number, to: number) =>
      Math.max(0, ...samples.filter(([s]) => s >= from && s <= to).map(([, n]) => n));
    const startS = Math.round((startedAt - up) / 1000);
    const span = Math.max(1, end - startS);
    return {
      engine: o.engine,
      allocator: /Memory\s+(jemalloc|system malloc)/.exec(product.output())?.[1] ?? 'unknown',
      files: o.files,
      folders,
      window: o.window,
      childrenPerRun: INDEXING_CHILDREN_PER_RUN,
      embedder: o.embedder,
      listMs,
      listAndPlanMs,
      indexMs,
      completed,
      completedMs,
      filesPerSec: Math.round((completed / completedMs) * 10_000) / 10,
      statusCounts: {
        PENDING: Number(d?.pendingCount ?? 0),
        INDEXING: Number(d?.indexingCount ?? 0),
        COMPLETE: completed,
        ERROR: Number(d?.errorCount ?? 0),
      },
      distinctSourceIds: Number(d?.documentCount ?? 0),
      runStatus: d?.lastRun?.status ?? 'unknown',
      runCounters: d?.lastRun?.counts ?? {},
      runs,
      maxHistoryLength,
      maxHistoryBytes,
      maxChildHistoryLength,
      peakNodeRssMb: Math.max(0, ...samples.map((s) => s[1])),
      peakTreeRssMb: Math.max(0, ...samples.map((s) => s[2])),
      rssFirstQuarterMb: quarter(startS, startS + span / 4),
      rssLastQuarterMb: quarter(end - span / 4, end),
      rss: samples.filter(([s]) => s % 10 === 0),
      heap,
      maintenanceByTrigger,
      memoryReleases,
      loadAverage: { start: loadStart, end: os.loadavg().map((x) => Math.round(x * 10) / 10) },
      cpuSeconds: cpuUsed,
      cpuMsPerFile: completed
        ? Math.round((Object.values(cpuUsed).reduce((a, b) => a + b, 0) * 1000) / completed)
        : 0,
      timeline,
      nodeThreadCpuSeconds: Object.fromEntries(
        Object.entries(nodeThreadCpu)
          .filter(([, v]) => v >= 0.1)
          .sort((x, y) => y[1] - x[1]),
      ),
    };
  } finally {
    clearInterval(sampler);
    clearInterval(heapSampler);
    await temporal?.close().catch(() => undefined);
    if (product) {
      const stopped = await product.stop('SIGTERM', 60_000);
      log(`${o.engine}: product stopped with code ${stopped.code} in ${stopped.ms} ms`);
    }
    await graph.close();
    // BENCH_KEEP_DATA=1 keeps the data directory (the Temporal dev server's log and database)
    if (process.env.BENCH_KEEP_DATA) log(`kept ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
