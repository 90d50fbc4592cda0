import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { Client } from 'pg';
import { docqaMetrics, MetricsService } from '@docqa/common';
import { startTestApp, TestApp } from '../support/app';

/** One sample line of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const got: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) got[l[1]] = l[2];
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[4]);
  }
  return undefined;
}

describe('Prometheus metrics endpoint (api hosting the worker)', () => {
  let app: TestApp;
  let scrapeUrl: string;

  const scrape = async () => {
    const res = await fetch(scrapeUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    return res.text();
  };

  beforeAll(async () => {
    app = await startTestApp({ worker: true });
    expect(app.api.metricsPort).toEqual(expect.any(Number));
    scrapeUrl = `http://127.0.0.1:${app.api.metricsPort}/metrics`;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('serves the request latency histogram by route template and status after real requests', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await app.client.get('/api/v1/document_proxy/health')).status).toBe(200);
    }
    expect((await app.client.get('/api/v1/document_proxy/version')).status).toBe(200);
    const missing = await app.client.get(`/api/v1/document_proxy/no-such-thing/${randomUUID()}`);
    expect(missing.status).toBe(404);

    const text = await scrape();
    expect(text).toContain('# TYPE docqa_http_request_duration_seconds histogram');
    const health = { method: 'GET', route: '/api/v1/document_proxy/health', status: '200' };
    expect(sample(text, 'docqa_http_request_duration_seconds_count', health)).toBeGreaterThanOrEqual(3);
    expect(
      sample(text, 'docqa_http_request_duration_seconds_bucket', { ...health, le: '+Inf' }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      sample(text, 'docqa_http_request_duration_seconds_count', {
        route: '/api/v1/document_proxy/version',
        status: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
    // Unmatched paths are one series, never the raw path.
    expect(
      sample(text, 'docqa_http_request_duration_seconds_count', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('no-such-thing');
  });

  it('serves the ask and indexing counters that other modules increment', async () => {
    const before = await scrape();
    expect(before).toContain('# TYPE docqa_ask_requests_total counter');
    expect(before).toContain('# TYPE docqa_documents_indexed_total counter');
    for (const status of ['COMPLETE', 'ERROR', 'CANCELLED'])
      expect(sample(before, 'docqa_documents_indexed_total', { status })).toEqual(expect.any(Number));
    const asked = sample(before, 'docqa_ask_requests_total') ?? 0;
    const completed = sample(before, 'docqa_documents_indexed_total', { status: 'COMPLETE' }) ?? 0;

    // The same process-wide registry the ask and indexing code paths increment.
    docqaMetrics.askRequests.inc();
    docqaMetrics.documentsIndexed.inc({ status: 'COMPLETE' }, 2);
    const after = await scrape();
    expect(sample(after, 'docqa_ask_requests_total')).toBe(asked + 1);
    expect(sample(after, 'docqa_documents_indexed_total', { status: 'COMPLETE' })).toBe(completed + 2);
  });

  it('reads the queue depth gauge from Postgres at scrape time', async () => {
    const empty = await scrape();
    expect(sample(empty, 'docqa_documents_queue_depth', { status: 'PENDING' })).toBe(0);
    expect(sample(empty, 'docqa_documents_queue_depth', { status: 'INDEXING' })).toBe(0);

    const db = new Client({ connectionString: app.cfg.database.url });
    await db.connect();
    try {
      const { rows } = await db.query(`INSERT INTO accounts (name) VALUES ('metrics') RETURNING id`);
      const insert = (status: string) =>
        db.query(
          `INSERT INTO documents (id, account_id, docset_name, file_name, source_type, source_id, status)
           VALUES ($1, $2, 'ds', 'a.pdf', 'S3', $3, $4)`,
          [randomUUID(), rows[0].id, randomUUID(), status],
        );
      await insert('PENDING');
      await insert('PENDING');
      await insert('INDEXING');
      await insert('COMPLETE');
    } finally {
      await db.end();
    }
    const text = await scrape();
    expect(sample(text, 'docqa_documents_queue_depth', { status: 'PENDING' })).toBe(2);
    expect(sample(text, 'docqa_documents_queue_depth', { status: 'INDEXING' })).toBe(1);
  });

  it("appends the Temporal worker's own metrics and the Node.js process metrics", async () => {
    let text = '';
    // Core starts reporting once the worker polls; give it a moment.
    for (let i = 0; i < 40; i++) {
      text = await scrape();
      if (/^temporal_\w+/m.test(text)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(text).toMatch(/^temporal_\w+(\{[^}]*\})? \S+$/m);
    expect(text).toMatch(/task_queue="docqa-test-/);
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('answers liveness on the metrics port and 404 elsewhere', async () => {
    const live = await fetch(`http://127.0.0.1:${app.api.metricsPort}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    expect((await fetch(`http://127.0.0.1:${app.api.metricsPort}/`)).status).toBe(404);
  });
});

/** A non-loopback IPv4 address of this machine, if it has one. */
function externalAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

async function reachable(host: string, port: number): Promise<boolean> {
  try {
    return (await fetch(`http://${host}:${port}/health/live`)).status === 200;
  } catch {
    return false;
  }
}

describe('metrics endpoint address (METRICS_HOST)', () => {
  it('listens on loopback only by default, even when the API binds every interface', async () => {
    const app = await startTestApp({ env: { BIND_HOST: '0.0.0.0', METRICS_HOST: undefined } });
    try {
      const metrics = app.api.app.get(MetricsService, { strict: false });
      expect(metrics.host).toBe('127.0.0.1');
      expect(await reachable('127.0.0.1', metrics.port!)).toBe(true);
      const external = externalAddress();
      if (external) expect(await reachable(external, metrics.port!)).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('binds elsewhere only when METRICS_HOST says so', async () => {
    const app = await startTestApp({ env: { METRICS_HOST: '0.0.0.0' } });
    try {
      const metrics = app.api.app.get(MetricsService, { strict: false });
      expect(metrics.host).toBe('0.0.0.0');
      const external = externalAddress();
      expect(await reachable(external ?? '127.0.0.1', metrics.port!)).toBe(true);
    } finally {
      await app.close();
    }
  });
});
