import { startTestApp, TestApp } from '../support/app';
const { startTemporal } = require('../infra/temporal');

describe('health names the dependency that is down', () => {
  let temporal: { address: string; stop(): Promise<void> };
  let app: TestApp;

  beforeAll(async () => {
    // A Temporal dev server of this suite's own, so stopping it does not disturb other suites.
    temporal = await startTemporal();
    app = await startTestApp({ env: { TEMPORAL_ADDRESS: temporal.address } });
  });
  afterAll(async () => {
    await app?.close();
    await temporal?.stop();
  });

  it('is 200 with every dependency up, then 503 naming temporal once it stops', async () => {
    const up = await app.client.get('/api/v1/document_proxy/health');
    expect(up.status).toBe(200);
    expect(up.body.down).toEqual([]);

    await temporal.stop();
    const down = await app.client.get('/api/v1/document_proxy/health');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      errorCode: 'DEPENDENCY_UNAVAILABLE',
      status: 'unavailable',
      down: ['temporal'],
      checks: { postgres: { status: 'up' }, search: { status: 'up' }, temporal: { status: 'down' } },
    });
    expect(down.body.message).toMatch(/temporal/);
  });
});
