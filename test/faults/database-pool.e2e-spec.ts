// A saturated connection pool (the CI failure of stop 19: a burst of indexing steps on a busy host
// held every connection for longer than the old fixed 5 s wait, and a progress poll got 503). The
// wait is DATABASE_POOL_WAIT_MS: a request queues for a connection up to that long, then answers
// 503 DEPENDENCY_UNAVAILABLE (never a 500, never a hang), and the service recovers by itself.
import { startTestApp, TestApp } from '../support/app';
import { dbOf, newAccount, paths } from '../indexing/support';

describe('database pool saturated', () => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    app = await startTestApp({
      env: { DATABASE_POOL_SIZE: '1' },
      config: { database: { poolWaitMs: 1500 } },
    });
    ({ token } = await newAccount(app));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it('queues a request for DATABASE_POOL_WAIT_MS, then answers 503, and recovers when a connection frees', async () => {
    expect(app.cfg.database.poolWaitMs).toBe(1500);
    const locker = await dbOf(app);
    try {
      // The progress read blocks on the lock while holding the pool's only connection.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE index_runs IN ACCESS EXCLUSIVE MODE');
      const holding = app.client.get(paths.progress('blocked'), { token });
      await waitForLockWaiter(locker);

      const t0 = Date.now();
      const queued = await app.client.get(paths.progress('other'), { token });
      const waitedMs = Date.now() - t0;
      expect(queued.status).toBe(503);
      expect(queued.body).toEqual({
        message: expect.stringContaining('database'),
        errorCode: 'DEPENDENCY_UNAVAILABLE',
      });
      // It waited for a connection before giving up (pg-pool's timer: not before the setting).
      expect(waitedMs).toBeGreaterThanOrEqual(1400);

      await locker.query('COMMIT');
      const held = await holding;
      expect(held.status).toBe(200);
      expect(held.body.isIndexing).toBe(false);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    const after = await app.client.get(paths.progress('other'), { token });
    expect(after.status).toBe(200);
  }, 60_000);
});

/** Until some other session of this database waits on a lock (the blocked progress read). */
async function waitForLockWaiter(c: { query: (q: string) => Promise<{ rows: { n: number }[] }> }) {
  for (let i = 0; i < 200; i++) {
    const { rows } = await c.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
    );
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the progress read never waited on the lock');
}
