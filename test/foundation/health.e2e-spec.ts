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

  it('tells a caller without a credential only which part is up, the operator view on the metrics port the rest', async () => {
    const pub = await app.client.get('/api/v1/document_proxy/health');
    expect(pub.status).toBe(200);
    expect(pub.body).toEqual({
      status: 'ok',
      checks: {
        postgres: { status: 'up' },
        temporal: { status: 'up' },
        search: { status: 'up' },
        indexing: { status: 'up' },
      },
      down: [],
    });
    // No engine, index name, version or address (issue #16 item 10).
    expect(pub.text).not.toMatch(/lancedb|elasticsearch|chunks-v|docqa-|cluster|127\.0\.0\.1|latency/i);
    const operator = await fetch(`http://127.0.0.1:${app.api.metricsPort}/health`);
    expect(operator.status).toBe(200);
    const details = await operator.json();
    expect(details.checks.search).toMatchObject({
      status: 'up',
      engine: 'elasticsearch',
      detail: expect.stringMatching(/^read up, write up; cluster (green|yellow), index /),
    });
    expect(details.checks.indexing).toMatchObject({
      status: 'up',
      detail: expect.stringContaining('waiting'),
    });
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
