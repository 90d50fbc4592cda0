import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { login, register, Registered } from '../accounts/support';
import { createKey, setPlan } from '../chatbot/support';
import {
  CORPUS_DIR,
  corpusFiles,
  createBucket,
  dbOf,
  indexAndWait,
  newAccount,
  putObject,
  S3_KEYS,
  s3,
  s3Credentials,
  startIndexingApp,
} from '../indexing/support';
import type { TestApp } from '../support/app';
import { minimalPdf } from '../support/pdf';

/**
 * Security checks (docs/security.md maps each threat to its test): response headers, login
 * throttling, secrets never logged, no SSRF through source fields, path traversal in file names and
 * paths, oversized and hostile bodies, malformed PDFs that cannot crash or hang a worker.
 */

const DP = '/api/v1/document_proxy';

/** A TCP listener that counts connections: a request field must never make the service dial it. */
async function canary(): Promise<{
  url: string;
  host: string;
  port: number;
  hits: () => number;
  close(): Promise<void>;
}> {
  let hits = 0;
  const srv = net.createServer((s) => {
    hits++;
    s.destroy();
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    hits: () => hits,
    close: () => new Promise<void>((r) => srv.close(() => r())),
  };
}

describe('Security checks', () => {
  let app: TestApp;
  let client: S3Client;
  let user: Registered;
  let token: string;
  let accountId: number;
  let cbKey: string;
  let bucket: string;
  // Secrets that must never appear in a log line.
  const secrets: string[] = [S3_KEYS.secretAccessKey];
  const SP_SECRET = 'sp-client-secret-Vv93kq';
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  beforeAll(async () => {
    app = await startIndexingApp({
      // Unreachable SaaS endpoints: the probes fail fast instead of leaving the machine.
      env: {
        GRAPH_BASE_URL: 'https://127.0.0.1:9/v1.0',
        MS_AUTHORITY_HOST: 'https://127.0.0.1:9',
        GOOGLE_API_ROOT_URL: 'https://127.0.0.1:9/',
        GOOGLE_TOKEN_URL: 'https://127.0.0.1:9/token',
        MAX_BODY_BYTES: String(256 * 1024),
      },
      config: { sources: { requestTimeoutMs: 3000 } },
    });
    client = s3();
    bucket = await createBucket(client, 'sec');
    user = await register(app);
    secrets.push(user.password, user.token);
    const a = await newAccount(app);
    token = a.token;
    accountId = a.accountId;
    secrets.push(token);
    await setPlan(app, accountId, 'pro');
    cbKey = (await createKey(app, token)).key;
    secrets.push(cbKey);
  }, 180_000);
  afterAll(async () => {
    client?.destroy();
    await app?.close();
  });

  describe('response headers', () => {
    it.each([
      ['GET', `${DP}/health`],
      ['GET', '/api/v1/me'],
      ['POST', '/api/v1/auth'],
      ['GET', `${DP}/documents/docsets`],
    ])('%s %s carries HSTS, nosniff, frame and referrer policies and no X-Powered-By', async (m, p) => {
      const res = await app.client.request(m, p, {
        token: p.includes('docsets') ? token : undefined,
        body: m === 'POST' ? {} : undefined,
      });
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d{7,}/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.status).toBeLessThan(500);
    });

    it('plain HTTP is refused (403) and never reaches a handler', async () => {
      const res = await fetch(`${app.httpUrl}/api/v1/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: user.email, password: user.password }),
      });
      expect(res.status).toBe(403);
      expect(await res.text()).not.toContain(user.token);
    });

    it('error bodies carry no stack, SQL or internals', async () => {
      const bad = await app.client.request('POST', `${DP}/ask`, {
        token,
        rawBody: '{"question": "x", "docSetNames": [',
        headers: { 'content-type': 'application/json' },
      });
      expect(bad.status).toBe(400);
      expect(bad.text).not.toMatch(/at \w+ \(|node_modules|SELECT |SyntaxError: Unexpected/);
    });
  });

  describe('login brute force', () => {
    it('throttles failed logins per e-mail (429 + Retry-After), even for the right password after', async () => {
      const victim = await register(app);
      secrets.push(victim.password, victim.token);
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++)
        statuses.push((await login(app, victim.email, `wrong-${i}-password`)).status);
      expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
      expect(statuses.slice(10)).toEqual([429, 429]);
      const right = await login(app, victim.email, victim.password);
      expect(right.status).toBe(429);
      expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
      expect(right.body).toMatchObject({
        error: expect.any(String),
        limit: 10,
        reset_at: expect.any(String),
      });
      expect(right.text).not.toContain(victim.token);
      // Another user is not locked out by it.
      expect((await login(app, user.email, user.password)).status).toBe(200);
    });
  });

  describe('no SSRF through source fields', () => {
    let c: Awaited<ReturnType<typeof canary>>;
    beforeAll(async () => {
      c = await canary();
    });
    afterAll(async () => c?.close());

    const serviceAccountKey = (extra: Record<string, unknown> = {}) => ({
      type: 'service_account',
      project_id: 'p',
      private_key_id: 'k1',
      private_key: PEM,
      client_email: 'svc@p.iam.gserviceaccount.com',
      client_id: '1',
      ...extra,
    });

    it.each(['endpoint', 'host', 'hostname', 'url', 'port'])(
      'S3 credentials.%s is a 400 on index and check-source',
      async (field) => {
        for (const p of ['/index', '/index/check-source']) {
          const res = await app.client.post(
            `${DP}${p}`,
            {
              docSetName: 'ssrf',
              sourceType: 'S3',
              credentials: { ...s3Credentials(bucket), [field]: field === 'port' ? c.port : c.url },
            },
            { token },
          );
          expect(res.status).toBe(400);
          expect(res.body.errorCode).toBe('VALIDATION_ERROR');
        }
      },
    );

    it.each(['endpoint', 'host', 'url', 'authority', 'authorityHost', 'graphBaseUrl', 'baseUrl', 'tokenUrl'])(
      'SharePoint credentials.%s is a 400',
      async (field) => {
        const res = await app.client.post(
          `${DP}/index/check-source`,
          {
            docSetName: 'ssrf',
            sourceType: 'SHAREPOINT',
            credentials: {
              tenantId: 'contoso.onmicrosoft.com',
              clientId: 'c1',
              clientSecret: SP_SECRET,
              siteId:
                'contoso.sharepoint.com,11111111-1111-1111-1111-111111111111,22222222-2222-2222-2222-222222222222',
              driveId: 'b!abc',
              [field]: c.url,
            },
          },
          { token },
        );
        expect(res.status).toBe(400);
        expect(res.text).not.toContain(SP_SECRET);
      },
    );

    it.each(['endpoint', 'url', 'rootUrl', 'apiRootUrl', 'tokenUrl', 'tokenUri'])(
      'Google Drive credentials.%s is a 400',
      async (field) => {
        const res = await app.client.post(
          `${DP}/index/check-source`,
          {
            docSetName: 'ssrf',
            sourceType: 'GOOGLEDRIVE',
            credentials: { serviceAccountKey: serviceAccountKey(), folderId: 'f1', [field]: c.url },
          },
          { token },
        );
        expect(res.status).toBe(400);
      },
    );

    it("a service-account key's own token_uri / auth URLs are never dialled", async () => {
      const res = await app.client.post(
        `${DP}/index/check-source`,
        {
          docSetName: 'ssrf',
          sourceType: 'GOOGLEDRIVE',
          credentials: {
            serviceAccountKey: serviceAccountKey({
              token_uri: `${c.url}/token`,
              auth_uri: `${c.url}/auth`,
              auth_provider_x509_cert_url: `${c.url}/certs`,
              client_x509_cert_url: `${c.url}/x509`,
            }),
            folderId: 'f1',
          },
        },
        { token },
      );
      expect([400, 422]).toContain(res.status);
      expect(res.text).not.toContain('PRIVATE KEY');
    });

    it('the canary was never contacted', () => {
      expect(c.hits()).toBe(0);
    });
  });

  describe('path traversal in file names and paths', () => {
    it('object keys with ../ index as plain names, never escape the data dir, and ids/names in paths are 404', async () => {
      const keys = [
        'trav/../../../etc/passwd.txt',
        'trav/..%2f..%2fescape.txt',
        'trav/sub/..\\..\\win.txt',
        'trav/ok.txt',
      ];
      for (const k of keys)
        await putObject(client, bucket, k, `Traversal probe ${path.basename(k)} content.`);
      const before = fs.readdirSync(path.dirname(app.dataDir)).length;
      await indexAndWait(
        app,
        token,
        { docSetName: 'trav', credentials: s3Credentials(bucket, 'trav/') },
        120_000,
      );
      const docs = await app.client.get(`${DP}/documents?docSetName=trav`, { token });
      expect(docs.status).toBe(200);
      expect(docs.body.length).toBeGreaterThanOrEqual(1);
      for (const d of docs.body as Array<{ fileName: string }>) expect(d.fileName).not.toMatch(/^\/|\.\.\//);
      expect(fs.existsSync('/etc/passwd.txt')).toBe(false);
      expect(fs.readdirSync(path.dirname(app.dataDir)).length).toBeLessThanOrEqual(before + 2);
      for (const p of [
        `${DP}/documents/..%2F..%2F..%2Fetc%2Fpasswd`,
        `${DP}/documents/metadata/..%2F..%2Fetc%2Fpasswd`,
        `${DP}/index/progress/..%2F..%2Fetc`,
        '/api/v1/chatbot/files/..%2F..%2F..%2Fetc%2Fpasswd',
        '/api/v1/chatbot/files/....%2F%2F....%2F%2Fetc%2Fpasswd.x',
      ]) {
        const res = await app.client.get(p, { token });
        // A docset name is only a string: progress of an unknown one is zeros (no file is ever read).
        const ok = p.includes('/progress/') ? [200, 400, 403, 404] : [400, 403, 404];
        expect([p, ok.includes(res.status)]).toEqual([p, true]);
        expect(res.text).not.toContain('root:');
      }
    });
  });

  describe('oversized and hostile bodies', () => {
    it.each([
      [`${DP}/ask`, 'errorCode'],
      ['/api/v1/users', 'error'],
      ['/api/v1/chatbot/ask_question', 'error'],
    ])('%s: a body over MAX_BODY_BYTES is 413 in the surface error body', async (p, field) => {
      const big = JSON.stringify({ question: 'x'.repeat(300 * 1024), docSetNames: ['a'] });
      const res = await app.client.request('POST', p, {
        token: p.includes('chatbot') ? cbKey : token,
        rawBody: big,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(413);
      expect(res.body).toHaveProperty(field);
    });

    it('deeply nested, wrongly typed and non-JSON bodies are 4xx, never 5xx', async () => {
      const nested = '['.repeat(50_000) + ']'.repeat(50_000);
      const cases: Array<[string, string, string]> = [
        [`${DP}/ask`, nested, 'application/json'],
        [`${DP}/ask`, '{"question": {"$gt": ""}, "docSetNames": "x"}', 'application/json'],
        [
          `${DP}/ask`,
          '{"__proto__": {"admin": true}, "question": "q", "docSetNames": []}',
          'application/json',
        ],
        [`${DP}/index`, '{"docSetName": "../../x", "sourceType": "FTP"}', 'application/json'],
        ['/api/v1/auth', 'email=a&password=b', 'application/x-www-form-urlencoded'],
        ['/api/v1/users', '\u0000\u0001', 'application/json'],
        ['/api/v1/chatbot/ask_question', '{"question": "q", "format": "<script>"}', 'application/json'],
      ];
      const wrong: string[] = [];
      for (const [p, body, type] of cases) {
        const res = await app.client.request('POST', p, {
          token: p.includes('chatbot') ? cbKey : token,
          rawBody: body,
          headers: { 'content-type': type },
        });
        if (res.status < 400 || res.status >= 500)
          wrong.push(`${p} ${body.slice(0, 60)} -> ${res.status} ${res.text.slice(0, 200)}`);
      }
      expect(wrong).toEqual([]);
    });
  });

  describe('malformed PDFs', () => {
    it('truncated, garbage and empty PDFs end as ERROR without crashing or hanging the worker', async () => {
      const real = fs.readFileSync(path.join(CORPUS_DIR, corpusFiles()[0]));
      const good = minimalPdf(['A healthy page about lighthouse maintenance.']);
      const files: Record<string, Buffer> = {
        'pdf/truncated.pdf': real.subarray(0, Math.floor(real.length / 3)),
        'pdf/header-only.pdf': Buffer.from('%PDF-1.7\n'),
        'pdf/garbage.pdf': Buffer.concat([
          Buffer.from('%PDF-1.4\n1 0 obj\n<< /Length 99999999 >>\nstream\n'),
          Buffer.alloc(4096, 0xff),
        ]),
        'pdf/empty.pdf': Buffer.alloc(0),
        'pdf/loop.pdf': Buffer.from(
          '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [2 0 R] /Count 1 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
        ),
        'pdf/good.pdf': good,
      };
      for (const [k, v] of Object.entries(files)) await putObject(client, bucket, k, v);
      const t0 = Date.now();
      await indexAndWait(
        app,
        token,
        { docSetName: 'pdfs', credentials: s3Credentials(bucket, 'pdf/') },
        180_000,
      );
      const elapsed = Date.now() - t0;
      const db = await dbOf(app);
      try {
        const { rows } = await db.query(
          'SELECT file_name, status, error FROM documents WHERE account_id = $1 AND docset_name = $2 ORDER BY file_name',
          [accountId, 'pdfs'],
        );
        const by = Object.fromEntries(rows.map((r) => [r.file_name, r.status]));
        expect(by['good.pdf']).toBe('COMPLETE');
        for (const f of ['truncated.pdf', 'header-only.pdf', 'garbage.pdf', 'empty.pdf', 'loop.pdf'])
          expect([f, by[f]]).toEqual([f, expect.stringMatching(/^(ERROR|COMPLETE)$/)]);
        expect(rows.filter((r) => r.status === 'ERROR').length).toBeGreaterThanOrEqual(3);
        for (const r of rows.filter((x) => x.status === 'ERROR')) expect(r.error).toBeTruthy();
      } finally {
        await db.end();
      }
      expect(elapsed).toBeLessThan(150_000);
      // The worker still works afterwards.
      await putObject(client, bucket, 'after/next.pdf', minimalPdf(['Still alive after bad PDFs.']));
      await indexAndWait(
        app,
        token,
        { docSetName: 'after', credentials: s3Credentials(bucket, 'after/') },
        120_000,
      );
      const after = await app.client.get(`${DP}/documents?docSetName=after`, { token });
      expect(after.body.map((d: { indexingStatus: string }) => d.indexingStatus)).toEqual(['COMPLETE']);
    });
  });

  describe('logs', () => {
    it('no token, password, chatbot key, private key or source secret appears in any log line', async () => {
      // Make sure authenticated traffic with each secret happened.
      await app.client.get('/api/v1/me', { token });
      await app.client.post('/api/v1/chatbot/ask_question', { question: 'hi' }, { token: cbKey });
      await login(app, user.email, user.password);
      const logs = app.logs();
      expect(logs.length).toBeGreaterThan(1000);
      const all = [...secrets, SP_SECRET, 'BEGIN PRIVATE KEY', PEM.split('\n')[1]];
      for (const s of all) {
        const at = logs.indexOf(s);
        if (at >= 0)
          throw new Error(
            `log contains a secret (${s.slice(0, 6)}…): …${logs.slice(Math.max(0, at - 120), at + 20)}…`,
          );
      }
      expect(logs).not.toMatch(/authorization":\s*"Bearer/i);
    });
  });
});
