import * as http from 'node:http';
import { DocqaMetrics, registerMetricsSource } from './metrics';
import { renderMetrics, startMetricsServer } from './metrics-server';

describe('DocqaMetrics', () => {
  it('declares the named series, with the indexing outcomes at zero', async () => {
    const m = new DocqaMetrics();
    const text = await m.registry.metrics();
    expect(text).toContain('# TYPE docqa_http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE docqa_ask_requests_total counter');
    expect(text).toContain('docqa_ask_requests_total 0');
    for (const status of ['COMPLETE', 'ERROR', 'CANCELLED'])
      expect(text).toContain(`docqa_documents_indexed_total{status="${status}"} 0`);
    expect(text).toContain('# TYPE docqa_documents_queue_depth gauge');
    expect(text).toContain('# TYPE docqa_search_maintenance_duration_seconds histogram');
  });

  it('reads the queue depth from its source at scrape time, and drops it when the source fails', async () => {
    const m = new DocqaMetrics();
    let pending = 3;
    const remove = m.setQueueDepthSource(async () => ({ PENDING: pending }));
    expect(await m.registry.metrics()).toContain('docqa_documents_queue_depth{status="PENDING"} 3');
    pending = 5;
    const text = await m.registry.metrics();
    expect(text).toContain('docqa_documents_queue_depth{status="PENDING"} 5');
    expect(text).toContain('docqa_documents_queue_depth{status="INDEXING"} 0');

    m.setQueueDepthSource(async () => {
      throw new Error('connection refused');
    });
    expect(await m.registry.metrics()).not.toMatch(/docqa_documents_queue_depth\{/);
    remove(); // a stale disposer does not remove the newer source
    m.setQueueDepthSource(async () => ({ INDEXING: 1 }))();
    expect(await m.registry.metrics()).not.toMatch(/docqa_documents_queue_depth\{/);
  });
});

describe('metrics server', () => {
  let source: http.Server;
  let sourcePort: number;

  beforeAll(async () => {
    source = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('# TYPE temporal_worker_start_total counter\ntemporal_worker_start_total 1');
    });
    await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
    sourcePort = (source.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => source.close(() => r())));

  it('serves its registry followed by the external sources, and liveness', async () => {
    const m = new DocqaMetrics();
    registerMetricsSource('unit-source', `http://127.0.0.1:${sourcePort}/metrics`);
    const server = await startMetricsServer({ host: '127.0.0.1', port: 0, metrics: m });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      const text = await res.text();
      expect(text).toContain('docqa_ask_requests_total 0');
      expect(text).toMatch(/docqa_ask_requests_total 0\n[\s\S]*temporal_worker_start_total 1\n$/);

      const live = await fetch(`http://127.0.0.1:${server.port}/health/live`);
      expect(await live.json()).toEqual({ status: 'ok' });
      expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${server.port}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.close();
    }
  });

  it('keeps serving its own series when an external source is down', async () => {
    const m = new DocqaMetrics();
    registerMetricsSource('unit-source', 'http://127.0.0.1:1/metrics');
    const text = await renderMetrics(m);
    expect(text).toContain('docqa_ask_requests_total 0');
    expect(text).toContain('# source unit-source unreachable');
  });
});
