// Fault tests (issue #10): an engine restarted mid-run. Each test starts PRIVATE engines for the
// fault under test (test/infra start functions), so stopping them does not disturb other suites,
// stops the engine while a run is indexing, checks the API answers 503 (health names the engine;
// a Document API read gives a clean 5xx, never a hang), starts the engine again on the same port
// and data dir, and checks the run finishes with right counts, no duplicated chunk and no lost
// document, and that health recovers to 200 by itself.
// "A worker killed mid-run" is covered in test/indexing/runs.e2e-spec.ts.
import type { S3Client } from '@aws-sdk/client-s3';
import { Client as PgClient } from 'pg';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { ElasticsearchSearchIndex } from '@docqa/search';
import { UNAVAILABLE_RETRY_PER_WRITE } from '@docqa/common';
import type { TestApp } from '../support/app';
import {
  createBucket,
  documents,
  expectUnavailableWaits,
  newAccount,
  pendingFailures,
  progress,
  Progress,
  putMany,
  runRow,
  s3,
  s3Credentials,
  searchIndexOf,
  startIndex,
  startIndexingApp,
  temporalOf,
  waitFor,
} from '../indexing/support';

const { startPostgres } = require('../infra/postgres');
const { startElasticsearch } = require('../infra/elasticsearch');
const { startTemporal } = require('../infra/temporal');

interface Engine {
  port: number;
  dir: string;
  stop(o?: { keepData?: boolean }): Promise<void>;
}

const FILES = 30;
const HEALTH = '/api/v1/document_proxy/health';
const REQUEST_TIMEOUT_MS = 20_000;

function tinyDocs(prefix: string) {
  return Array.from({ length: FILES }, (_, i) => ({
    key: `${prefix}note-${String(i).padStart(2, '0')}.txt`,
    body:
      `Fault note ${i}. The restart drill number ${i} checks that indexing survives an engine restart.\n` +
      `Paragraph two of note ${i}: retention, quotas and replicas are described here in a few words.\n`,
  }));
}

/** The request, or a failure if it does not answer within REQUEST_TIMEOUT_MS (a hang fails the test). */
async function bounded<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<T>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what}: no answer in ${REQUEST_TIMEOUT_MS} ms`)),
          REQUEST_TIMEOUT_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function until<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${String(last ?? '')}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Progress that tolerates the outage (the read may fail while the engine is down). */
async function waitForRecovered(app: TestApp, token: string, docSetName: string): Promise<Progress> {
  return until(
    async () => {
      const p = await bounded(progress(app, token, docSetName), 'progress');
      return p.isIndexing ? undefined : p;
    },
    'the run to finish',
    300_000,
  );
}

async function createDb(adminUrl: string): Promise<string> {
  const name = `faults_${randomBytes(5).toString('hex')}`;
  const c = new PgClient({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

interface Scenario {
  /** The engine name health reports. */
  check: 'postgres' | 'search' | 'temporal';
  start(o?: { port?: number; dir?: string }): Promise<Engine>;
  /** App env pointing at the private engine. */
  env(e: Engine & { url?: string; address?: string }): Promise<Record<string, string>>;
  /** A Document API read that needs the engine (answers a clean 5xx while it is down). */
  read(app: TestApp, token: string, docSetName: string): Promise<{ status: number; body: any }>;
  /**
   * How an indexing step that needs the engine fails while it is down, when the step sees it as an
   * unavailable dependency (and so waits before its next attempt; failures.ts).
   */
  stepFailure?: RegExp;
}

// The first wait before a step whose dependency was unavailable is tried again (doubling), kept
// short so the run resumes soon after the restart: an eighth of the search write deadline, which
// is shortened for it (16 s, still far above a write here).
const RETRY_MS = 2000;
const RETRY_ENV = { SEARCH_WRITE_TIMEOUT_MS: String(RETRY_MS / UNAVAILABLE_RETRY_PER_WRITE) };

const scenarios: Record<string, Scenario> = {
  'the search engine': {
    check: 'search',
    start: (o) => startElasticsearch(o),
    env: async (e) => ({ ELASTICSEARCH_URL: e.url!, ...RETRY_ENV }),
    read: (app, token, docSetName) =>
      app.client.post(
        '/api/v1/document_proxy/ask',
        { question: 'restart drill retention', docSetNames: [docSetName] },
        { token },
      ),
    stepFailure: /^Search engine (unavailable|did not answer in time)$/,
  },
  Postgres: {
    check: 'postgres',
    start: (o) => startPostgres(o),
    env: async (e) => ({
      DATABASE_URL: await createDb(e.url!),
      ...RETRY_ENV,
    }),
    read: (app, token) => app.client.get('/api/v1/document_proxy/documents/docsets', { token }),
    stepFailure: /^Database unavailable$/,
  },
  'the Temporal dev server': {
    check: 'temporal',
    start: (o) => startTemporal({ ...o, persist: true }),
    env: async (e) => ({ TEMPORAL_ADDRESS: e.address! }),
    // Starting a run needs Temporal (reads of progress and documents are answered from Postgres).
    read: (app, token, docSetName) =>
      app.client.post(
        '/api/v1/document_proxy/index',
        { docSetName: `${docSetName}-other`, credentials: s3Credentials('no-such-bucket', 'x/') },
        { token },
      ),
  },
};

describe.each(Object.keys(scenarios))('%s restarted mid-run', (name) => {
  const sc = scenarios[name];
  let engine: (Engine & { url?: string; address?: string }) | undefined;
  let app: TestApp | undefined;
  let client: S3Client;
  /** Data dir of the engine while it is stopped (removed in afterAll if the test fails before the restart). */
  let stoppedDir: string | undefined;

  beforeAll(async () => {
    engine = await sc.start();
    app = await startIndexingApp({ env: { INDEXING_CONCURRENCY: '1', ...(await sc.env(engine!)) } });
    client = s3();
  }, 300_000);
  afterAll(async () => {
    client?.destroy();
    await app?.close().catch(() => undefined);
    await engine?.stop();
    if (!engine && stoppedDir) fs.rmSync(stoppedDir, { recursive: true, force: true });
  }, 120_000);

  it('answers 503 while it is down, then finishes the run with right counts and no duplicate', async () => {
    const a = app!;
    const bucket = await createBucket(client);
    const { token, accountId } = await newAccount(a);
    const docSetName = 'drill';
    await putMany(client, bucket, tinyDocs('fault/'), 8);
    const jobId = await startIndex(a, token, { docSetName, credentials: s3Credentials(bucket, 'fault/') });
    const atStop = await waitFor(
      a,
      token,
      docSetName,
      (p) => p.completedCount >= 1 || !p.isIndexing,
      180_000,
      50,
    );
    const { port, dir } = engine!;
    stoppedDir = dir;
    await engine!.stop({ keepData: true });
    engine = undefined;
    expect(atStop.completedCount).toBeLessThan(FILES);

    // Down: health names the engine (503), a read that needs it answers a clean 5xx, in bounded time.
    const health = await until(
      async () => {
        const r = await bounded(a.client.get(HEALTH), 'health');
        return r.status === 503 ? r : undefined;
      },
      'health 503',
      60_000,
    );
    expect(health.body).toMatchObject({ status: 'unavailable', errorCode: 'DEPENDENCY_UNAVAILABLE' });
    expect(health.body.down).toContain(sc.check);
    const read = await bounded(sc.read(a, token, docSetName), 'read while down');
    expect(read.status).toBeGreaterThanOrEqual(500);
    expect(read.status).toBeLessThan(600);
    expect(read.body).toMatchObject({ message: expect.any(String), errorCode: expect.any(String) });

    // Down: a step that needs it fails as retryable and asks for a wait before its next attempt,
    // so its attempts last through an outage of minutes instead of the retry policy's first seconds.
    if (sc.stepFailure) {
      const waiting = await until(
        async () => {
          const found = await pendingFailures(
            temporalOf(a),
            `ExecutionStatus = 'Running' AND TaskQueue = '${a.cfg.temporal.taskQueue}'`,
          );
          const unavailable = found.filter((f) => sc.stepFailure!.test(f.message));
          return unavailable.length ? unavailable : undefined;
        },
        'a step to fail while the engine is down',
        60_000,
      );
      expectUnavailableWaits(waiting, RETRY_MS);
    }

    // Back on the same port and data dir.
    engine = await sc.start({ port, dir });
    stoppedDir = undefined;

    const done = await waitForRecovered(a, token, docSetName);
    expect(done).toMatchObject({ completedCount: FILES, errorCount: 0, pendingCount: 0, indexingCount: 0 });
    const run = await runRow(a, jobId);
    expect(run.status).toBe('COMPLETED');
    const docs = await documents(a, accountId, docSetName);
    expect(docs.map((d) => d.file_name).sort()).toEqual(
      tinyDocs('')
        .map((d) => d.key)
        .sort(),
    );
    expect(docs.every((d) => d.status === 'COMPLETE' && (d.chunk_count ?? 0) > 0)).toBe(true);
    // No duplicated chunk: per document, chunks in the search engine == its chunk_count.
    const idx = searchIndexOf(a);
    const perDoc = await chunksPerDocument(a, accountId);
    for (const d of docs)
      expect({ doc: d.file_name, chunks: perDoc.get(d.id) ?? 0 }).toEqual({
        doc: d.file_name,
        chunks: d.chunk_count,
      });
    expect((await idx.stats(accountId)).chunks).toBe(docs.reduce((s, d) => s + (d.chunk_count ?? 0), 0));

    const healthy = await until(
      async () => {
        const r = await bounded(a.client.get(HEALTH), 'health');
        return r.status === 200 ? r : undefined;
      },
      'health 200',
      90_000,
    );
    expect(healthy.body).toMatchObject({ status: 'ok', down: [] });
  }, 600_000);
});

/** Chunks per document id, counted in the search engine (terms aggregation on documentId). */
async function chunksPerDocument(app: TestApp, accountId: number): Promise<Map<string, number>> {
  const idx = searchIndexOf(app) as ElasticsearchSearchIndex;
  await idx.client.indices.refresh({ index: idx.alias });
  const r = await idx.client.search({
    index: idx.alias,
    size: 0,
    query: { term: { accountId: String(accountId) } },
    aggs: { perDoc: { terms: { field: 'documentId', size: 10_000 } } },
  });
  const buckets = (r.aggregations?.perDoc as { buckets: Array<{ key: string; doc_count: number }> }).buckets;
  return new Map(buckets.map((b) => [String(b.key), b.doc_count]));
}
