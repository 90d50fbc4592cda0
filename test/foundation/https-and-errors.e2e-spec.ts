import * as http from 'node:http';
import { Client } from 'pg';
import { ProbeModule } from '../support/probe.module';
import { defaultLocalEmbedderName, startTestApp, TestApp } from '../support/app';

function plainRequest(url: string, method: string, body?: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = http.request(
      url,
      { method, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let data = '';
        res.on('data', (c) => (data += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : null }));
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

describe('HTTPS only and the two error conventions', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ extraModules: [ProbeModule], env: { MAX_BODY_BYTES: '2048' } });
  });
  afterAll(async () => app?.close());

  it('serves the health endpoint over HTTPS with a verifiable certificate', async () => {
    const res = await app.client.get('/api/v1/document_proxy/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.checks.postgres.status).toBe('up');
    expect(res.body.checks.temporal.status).toBe('up');
    expect(res.body.checks.search).toEqual({ status: 'up' });
    expect(res.headers['strict-transport-security']).toBeDefined();
  });

  it('refuses plain HTTP with 403 in each surface body and never runs the handler', async () => {
    const doc = await plainRequest(`${app.httpUrl}/api/v1/document_proxy/health`, 'GET');
    expect(doc).toEqual({ status: 403, body: { message: expect.any(String), errorCode: 'HTTPS_REQUIRED' } });

    const acct = await plainRequest(
      `${app.httpUrl}/api/v1/__probe`,
      'POST',
      JSON.stringify({ name: 'x', count: 1 }),
    );
    expect(acct.status).toBe(403);
    expect(acct.body).toEqual({ error: expect.stringContaining('HTTPS') });

    // A registration attempt over HTTP creates nothing.
    const reg = await plainRequest(
      `${app.httpUrl}/api/v1/users`,
      'POST',
      JSON.stringify({
        user: { email: 'plain@example.com', password: 'password123', password_confirmation: 'password123' },
      }),
    );
    expect(reg.status).toBe(403);
    const pg = new Client({ connectionString: app.cfg.database.url });
    await pg.connect();
    const { rows } = await pg.query('SELECT count(*)::int AS n FROM users');
    await pg.end();
    expect(rows[0].n).toBe(0);
  });

  it('ignores X-Forwarded-Proto unless TRUST_PROXY is set', async () => {
    const res = await plainRequest(`${app.httpUrl}/api/v1/document_proxy/version`, 'GET', undefined, {
      'x-forwarded-proto': 'https',
    });
    expect(res.status).toBe(403);
  });

  it('returns the version without a credential', async () => {
    const res = await app.client.get('/api/v1/document_proxy/version');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      name: 'docqa',
      version: require('../../package.json').version,
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      embedder: { model: defaultLocalEmbedderName(), dimensions: 384 },
    });
  });

  it('renders validation errors with the field on both surfaces', async () => {
    const doc = await app.client.post('/api/v1/document_proxy/__probe', { name: 'a', count: 99 });
    expect(doc.status).toBe(400);
    expect(doc.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field: 'count' });
    expect(typeof doc.body.message).toBe('string');

    const acct = await app.client.post('/api/v1/__probe', { name: 5, count: 1 });
    expect(acct.status).toBe(400);
    expect(acct.body.error).toEqual(expect.any(String));
    expect(acct.body.errors.name).toEqual([expect.any(String)]);

    const unknownField = await app.client.post('/api/v1/document_proxy/__probe', {
      name: 'a',
      count: 1,
      admin: true,
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.field).toBe('admin');
  });

  it('answers malformed JSON with 400, not 500', async () => {
    const doc = await app.client.request('POST', '/api/v1/document_proxy/__probe', {
      rawBody: '{"name": "a",',
      headers: { 'content-type': 'application/json' },
    });
    expect(doc.status).toBe(400);
    expect(doc.body.errorCode).toBe('MALFORMED_JSON');
    const acct = await app.client.request('POST', '/api/v1/__probe', {
      rawBody: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expect(acct.status).toBe(400);
    expect(acct.body).toEqual({ error: 'Request body is not valid JSON' });
  });

  it('answers oversized bodies with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(5000), count: 1 });
    const doc = await app.client.request('POST', '/api/v1/document_proxy/__probe', {
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(doc.status).toBe(413);
    expect(doc.body.errorCode).toBe('PAYLOAD_TOO_LARGE');
    const acct = await app.client.request('POST', '/api/v1/__probe', {
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(acct.status).toBe(413);
    expect(acct.body.error).toMatch(/too large/);
  });

  it('answers unknown routes with 404 in each surface body', async () => {
    const doc = await app.client.get('/api/v1/document_proxy/nope');
    expect(doc.status).toBe(404);
    expect(doc.body.errorCode).toBe('NOT_FOUND');
    const acct = await app.client.get('/api/v1/nope');
    expect(acct.status).toBe(404);
    expect(acct.body).toEqual({ error: expect.stringContaining('not found') });
  });

  it('hides unexpected failures behind an error id, with no internals in the response or the logs', async () => {
    const doc = await app.client.post('/api/v1/document_proxy/__explode', {});
    expect(doc.status).toBe(500);
    expect(doc.body).toEqual({
      message: 'Internal server error',
      errorCode: 'INTERNAL_ERROR',
      errorId: expect.any(String),
    });
    const acct = await app.client.post('/api/v1/__explode', {});
    expect(acct.status).toBe(500);
    expect(acct.body).toEqual({ error: 'Internal server error', errorId: expect.any(String) });
    expect(doc.text).not.toMatch(/secret_table|SELECT|at .*\.ts/);
    const logs = app.logs();
    expect(logs).toContain(doc.body.errorId);
    expect(logs).not.toMatch(/SELECT \* FROM secret_table|password = \$1/);
    expect(logs).not.toMatch(/\n\s+at /);
  });

  it('redacts the Authorization header and secret-like fields from logs', async () => {
    await app.client.get('/api/v1/document_proxy/nope', { token: 'dq_supersecrettokenvalue123' });
    expect(app.logs()).not.toContain('dq_supersecrettokenvalue123');
  });

  it('publishes the OpenAPI document', async () => {
    const res = await app.client.get('/api/docs-json');
    expect(res.status).toBe(200);
    expect(res.body.paths['/api/v1/document_proxy/health']).toBeDefined();
    expect(res.body.paths['/api/v1/document_proxy/version']).toBeDefined();
  });
});

describe('behind a TLS-terminating proxy (TRUST_PROXY)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(async () => app?.close());

  it('serves plain-HTTP requests that the proxy marks as HTTPS, and still refuses the rest', async () => {
    const ok = await plainRequest(`${app.httpUrl}/api/v1/document_proxy/version`, 'GET', undefined, {
      'x-forwarded-proto': 'https',
    });
    expect(ok.status).toBe(200);
    expect(ok.body.name).toBe('docqa');
    const refused = await plainRequest(`${app.httpUrl}/api/v1/document_proxy/version`, 'GET', undefined, {
      'x-forwarded-proto': 'http',
    });
    expect(refused.status).toBe(403);
  });
});
