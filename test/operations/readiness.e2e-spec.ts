import { startTestApp, TestApp } from '../support/app';
import { ControllablePostgres, startControllablePostgres } from './pg-control';

const READY = '/api/v1/document_proxy/health/ready';
const LIVE = '/api/v1/document_proxy/health/live';

async function waitForStatus(app: TestApp, path: string, status: number, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await app.client.get(path);
    if (res.status === status || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('liveness and readiness probes', () => {
  let pg: ControllablePostgres;
  let app: TestApp;

  beforeAll(async () => {
    // A Postgres of this suite's own, so stopping it does not disturb other suites.
    pg = await startControllablePostgres();
    app = await startTestApp({ env: { DATABASE_URL: pg.url } });
  });
  afterAll(async () => {
    await app?.close();
    await pg?.destroy();
  });

  it('is ready while Postgres answers, 503 while it is down, and ready again after it restarts', async () => {
    const ready = await app.client.get(READY);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', checks: { postgres: { status: 'up' } } });
    expect((await app.client.get(LIVE)).body).toEqual({ status: 'ok' });

    pg.stopServer();
    const down = await waitForStatus(app, READY, 503);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      errorCode: 'DEPENDENCY_UNAVAILABLE',
      status: 'unavailable',
      down: ['postgres'],
      checks: { postgres: { status: 'down' } },
    });
    expect(down.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|password|SELECT/);
    // Liveness checks no dependency: an orchestrator must not restart the API for a DB outage.
    const live = await app.client.get(LIVE);
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    // The existing /health keeps its behaviour and names postgres.
    const health = await app.client.get('/api/v1/document_proxy/health');
    expect(health.status).toBe(503);
    expect(health.body.down).toContain('postgres');

    pg.startServer();
    const back = await waitForStatus(app, READY, 200);
    expect(back.status).toBe(200);
    expect(back.body.checks.postgres.status).toBe('up');
    expect((await app.client.get('/api/v1/document_proxy/health')).body.checks.postgres.status).toBe('up');
  });
});
