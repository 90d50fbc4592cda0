// Issue #13: what the service does when the embedded engine really wedges. The engine deadlock of
// the issue is provoked on purpose: an operator's explicit LANCE_CPU_THREADS=1 is honoured (with a
// warning), and the data directory is seeded just below the data-size cliff, so the product's
// first index maintenance deadlocks inside the engine exactly as it did for the user. The
// product runs as `npm start` in a child process. Then:
// - steps that write fail as retryable activity failures and free their worker slot (two slots
//   only, so a held slot would block everything): once the write lock has been held past a
//   writer's wait they fail before embedding anything, so another account's listing still runs,
//   and each asks for a wait before its next attempt that doubles (UNAVAILABLE_RETRY_PER_WRITE of
//   SEARCH_WRITE_TIMEOUT_MS, as are the write lock wait and the maintenance deadline);
// - /ask answers 503 within its read deadline instead of hanging;
// - /health and /health/ready answer 503 naming `search`;
// - SIGTERM ends the process within 30 s with a line naming what did not stop;
// - restarted on the default settings, the same runs finish: every NTSB report COMPLETE.
import type { Client as TemporalClient } from '@temporalio/client';
import { Connection, Client } from '@temporalio/client';
import { UNAVAILABLE_RETRY_PER_WRITE } from '@docqa/common';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Product, registerAccount, startProduct } from '../support/product';
import { createTestDatabase, infra, sharedDir, uniqueName } from '../support/infra';
import {
  createBucket,
  expectUnavailableWaits,
  paths,
  pendingFailures,
  putMany,
  s3,
  S3_KEYS,
} from './support';

const ROOT = path.resolve(__dirname, '../..');
const SIMILAR = sharedDir('corpus', 'similar');
const HEALTH = '/api/v1/document_proxy/health';
const READY = '/api/v1/document_proxy/health/ready';
const ASK = '/api/v1/document_proxy/ask';
// The write deadline, shortened: the lock wait (half: 4 s), the maintenance deadline (5x: 40 s) and
// the first wait before a step whose dependency was unavailable is tried again (an eighth: 1 s,
// doubling) follow it.
const WRITE_TIMEOUT_MS = 8000;
const RETRY_MS = WRITE_TIMEOUT_MS * UNAVAILABLE_RETRY_PER_WRITE;

function seedBelowTheCliff(dataDir: string): Promise<string> {
  // 20 rounds of the indexing write pattern (6,912 chunks) without their last maintenance: the
  // product's first maintenance folds them into the full-text index, past the size that deadlocks.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('LANCE_')) env[k] = v;
  Object.assign(env, { LOAD_PRODUCT_SPACE: '1', LOAD_ROUNDS: '20', LOAD_FINAL_OPTIMIZE: '0' });
  const child = spawn(
    process.execPath,
    [
      '-r',
      path.join(ROOT, 'test/support/ts-register.js'),
      path.join(ROOT, 'test/search/support/embedded-write-load.ts'),
      path.join(dataDir, 'search'),
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`seed failed (${code}):\n${out}`)),
    ),
  );
}

async function until<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 1000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${String(last ?? '')})`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

describe('a wedged embedded engine (issue #13)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let product: Product | undefined;
  let temporal: TemporalClient;
  let connection: Connection;
  let bucket: string;
  const files = fs.readdirSync(SIMILAR).filter((f) => f.endsWith('.pdf'));

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-wedge-'));
    const client = s3();
    bucket = await createBucket(client, 'wedge');
    await putMany(
      client,
      bucket,
      files.map((f) => ({ key: `ntsb/${f}`, body: fs.readFileSync(path.join(SIMILAR, f)) })),
      4,
    );
    await putMany(client, bucket, [
      { key: 'small/note.txt', body: 'The harbour crane inspection happens every spring.' },
    ]);
    await seedBelowTheCliff(dataDir);
    env = {
      DATA_DIR: dataDir,
      LOG_FILE: path.join(dataDir, 'app.log'),
      HTTPS_PORT: '0',
      HTTP_PORT: '0',
      METRICS_PORT: '0',
      BIND_HOST: '127.0.0.1',
      DATABASE_URL: await createTestDatabase('wedge'),
      TEMPORAL_ADDRESS: infra().temporalAddress,
      TEMPORAL_TASK_QUEUE: uniqueName('wedge'),
      S3_ENDPOINT: infra().s3Endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_REGION: 'us-east-1',
      WORKER_MAX_CONCURRENT_ACTIVITIES: '2',
      SEARCH_WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS),
      SEARCH_READ_TIMEOUT_MS: '3000',
    };
    connection = await Connection.connect({ address: infra().temporalAddress });
    temporal = new Client({ connection });
  }, 300_000);

  afterAll(async () => {
    await product?.stop('SIGKILL').catch(() => undefined);
    await connection?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('fails steps at their deadlines, keeps serving and reporting, stops within 30 s, and finishes after a restart', async () => {
    // The operator's explicit one-thread engine: the deadlock of the issue, on purpose.
    product = await startProduct({ ...env, LANCE_CPU_THREADS: '1' });
    const c = product.client;
    expect(fs.readFileSync(env.LOG_FILE, 'utf8')).toContain(
      'LANCE_CPU_THREADS=1: the full-text index builder can deadlock',
    );
    const small = await registerAccount(c, 'small');
    const ntsb = await registerAccount(c, 'ntsb');
    const late = await registerAccount(c, 'late');

    // One small docset completes; the maintenance that follows the write deadlocks the engine.
    const credentials = (prefix: string) => ({ ...S3_KEYS, bucket, prefix });
    expect(
      (
        await c.post(
          paths.index,
          { docSetName: 'notes', credentials: credentials('small/') },
          { token: small },
        )
      ).status,
    ).toBe(202);
    await until(
      'the small docset to complete',
      async () =>
        (await c.get(paths.progress('notes'), { token: small })).body.completedCount === 1 ? true : undefined,
      120_000,
    );
    expect(
      (await c.post(paths.index, { docSetName: 'ntsb', credentials: credentials('ntsb/') }, { token: ntsb }))
        .status,
    ).toBe(202);

    // Health tells the truth: the read probe does not answer, search is down, not ready.
    const health = await until(
      'health to report search down',
      async () => {
        const r = await c.get(HEALTH);
        return r.status === 503 && r.body.down.includes('search') ? r : undefined;
      },
      90_000,
    );
    expect(health.body.checks.search).toEqual({ status: 'down' });
    const ready = await c.get(READY);
    expect(ready.status).toBe(503);
    expect(ready.body.down).toContain('search');

    // An ask answers within its deadline: 503, not a hang.
    const t0 = Date.now();
    const ask = await c.post(
      ASK,
      { question: 'When is the crane inspected?', docSetNames: ['notes'] },
      { token: small },
    );
    expect(Date.now() - t0).toBeLessThan(5000 + 2000);
    expect(ask.status).toBe(503);
    expect(ask.body.errorCode).toBe('DEPENDENCY_UNAVAILABLE');

    // Steps that write fail (retryable) and free their slot: with two slots, another account's run
    // still lists and plans its files.
    expect(
      (await c.post(paths.index, { docSetName: 'late', credentials: credentials('ntsb/') }, { token: late }))
        .status,
    ).toBe(202);
    await until(
      "another account's listing and planning",
      async () => {
        const p = (await c.get(paths.progress('late'), { token: late })).body;
        return p.pendingCount + p.indexingCount + p.completedCount + p.errorCount === files.length
          ? p
          : undefined;
      },
      120_000,
    );
    const failures = await until(
      'a step to fail without embedding what the engine cannot take',
      async () => {
        const found = await pendingFailures(
          temporal,
          `WorkflowType = 'indexDocumentWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = '${env.TEMPORAL_TASK_QUEUE}'`,
        );
        return found.some((f) => /is not accepting writes/.test(f.message)) ? found : undefined;
      },
      120_000,
      3000,
    );
    const blocked = failures.filter((f) => /is not accepting writes/.test(f.message));
    // the write step of a small document (one step) or of a large one (the chunk step)
    for (const f of blocked) expect(f.activityType).toMatch(/^(indexSmallDocument|indexDocumentChunks)$/);
    expect(blocked.map((f) => f.message)).toContain('Search engine is not accepting writes');
    // Each such failure asks for its wait, so the step's attempts last while the engine is blocked.
    expectUnavailableWaits(blocked, RETRY_MS);
    // attempts fail in milliseconds and wait seconds, so nearly all of them are seen waiting
    expect(blocked.some((f) => f.scheduledMs !== undefined)).toBe(true);
    expect(fs.readFileSync(env.LOG_FILE, 'utf8')).toMatch(
      /not written, the search engine is not accepting writes \(the write lock has been held for \d+ ms\)/,
    );

    // Shutdown is bounded and names what did not stop.
    const stopped = await product.stop('SIGTERM');
    expect(stopped.ms).toBeLessThan(30_000);
    expect(stopped.code).toBe(1);
    expect(product.output()).toMatch(/shutdown: .*search index/);
    product = undefined;

    // Restarted on the defaults (the engine sizes its pool itself), the same runs finish.
    product = await startProduct(env);
    const c2 = product.client;
    const done = await until(
      'the NTSB run to finish after the restart',
      async () => {
        const p = (await c2.get(paths.progress('ntsb'), { token: ntsb })).body;
        return p.isIndexing ? undefined : p;
      },
      300_000,
      2000,
    );
    expect(done).toMatchObject({
      completedCount: files.length,
      errorCount: 0,
      pendingCount: 0,
      indexingCount: 0,
    });
    const healthy = await until(
      'health 200',
      async () => {
        const r = await c2.get(HEALTH);
        return r.status === 200 ? r : undefined;
      },
      60_000,
    );
    expect(healthy.body.down).toEqual([]);
    const answer = await c2.post(
      ASK,
      { question: 'When is the crane inspected?', docSetNames: ['notes'] },
      { token: small },
    );
    expect(answer.status).toBe(200);
    const stoppedAgain = await product.stop('SIGINT');
    expect(stoppedAgain).toMatchObject({ code: 0 });
    expect(stoppedAgain.ms).toBeLessThan(30_000);
    product = undefined;
  }, 900_000);
});
