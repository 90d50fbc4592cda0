import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Client } from 'pg';
import { NO_ANSWER_TEXT } from '@docqa/answers';
import { startTestApp, TestApp } from '../support/app';
import { dbOf } from '../indexing/support';
import { ask, ASK, chatbotAccount, createKey, KEYS, SETTINGS, setPlan, SUPPORT } from './support';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../scripts/cli.js');

describe('Chatbot: settings, cb_ keys, plans, key auth, origin lock and CORS', () => {
  let app: TestApp;
  let db: Client;

  beforeAll(async () => {
    app = await startTestApp();
    db = await dbOf(app);
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
  });

  describe('settings (extension)', () => {
    it('starts on the free plan with no support address and every docset', async () => {
      const a = await chatbotAccount(app, { plan: 'free' });
      const res = await app.client.get(SETTINGS, { token: a.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        plan: 'free',
        chatbot_enabled: false,
        rate_limit_per_hour: null,
        support_email: null,
        docset_names: null,
        available_docsets: [],
      });
    });

    it('sets and clears the support address; validates with 422 by field', async () => {
      const a = await chatbotAccount(app);
      const set = await app.client.patch(
        SETTINGS,
        { support_email: ' help@shop.example.com ' },
        { token: a.token },
      );
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ plan: 'pro', chatbot_enabled: true, rate_limit_per_hour: 50 });
      expect(set.body.support_email).toBe('help@shop.example.com');

      const bad = await app.client.patch(
        SETTINGS,
        { support_email: 'not-an-address', docset_names: 'x', plan: 'business' },
        { token: a.token },
      );
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.errors).sort()).toEqual(['docset_names', 'plan', 'support_email']);
      // The plan is an operator's decision: it cannot be set through the API.
      expect((await app.client.get(SETTINGS, { token: a.token })).body.plan).toBe('pro');

      const unknownDocset = await app.client.patch(SETTINGS, { docset_names: ['nope'] }, { token: a.token });
      expect(unknownDocset.status).toBe(422);
      expect(unknownDocset.body.errors.docset_names[0]).toContain('nope');

      const cleared = await app.client.patch(SETTINGS, { support_email: null }, { token: a.token });
      expect(cleared.body.support_email).toBeNull();
    });

    it('needs an unrestricted API token (a cb_ key or a read-only token is refused)', async () => {
      const a = await chatbotAccount(app);
      const ro = await app.client.post(
        '/api/v1/api_tokens',
        { name: 'ro', read_only: true },
        { token: a.token },
      );
      expect((await app.client.get(SETTINGS, { token: ro.body.token })).status).toBe(403);
      expect((await app.client.get(KEYS, { token: ro.body.token })).status).toBe(403);
      const { key } = await createKey(app, a.token);
      const viaKey = await app.client.get(SETTINGS, { token: key });
      expect(viaKey.status).toBe(401);
      expect(viaKey.body).toEqual({ error: expect.any(String) });
      expect((await app.client.get(SETTINGS)).status).toBe(401);
    });
  });

  describe('cb_ keys (extension)', () => {
    it('creates a key shown once and stored hashed, lists it masked, updates and revokes it', async () => {
      const a = await chatbotAccount(app);
      const created = await app.client.post(
        KEYS,
        { name: 'Website', allowed_origin: 'HTTPS://Shop.Example.com:443/' },
        { token: a.token },
      );
      expect(created.status).toBe(200);
      expect(created.body).toEqual({
        id: expect.any(Number),
        name: 'Website',
        key: expect.stringMatching(/^cb_[A-Za-z0-9_-]{43}$/),
        allowed_origin: 'https://shop.example.com',
        created_at: expect.any(String),
      });
      const key = created.body.key as string;

      // Only the SHA-256 hash and a short display prefix are stored.
      const { rows } = await db.query('SELECT * FROM chatbot_keys WHERE id = $1', [created.body.id]);
      expect(JSON.stringify(rows[0])).not.toContain(key.slice(8));
      expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);

      const list = await app.client.get(KEYS, { token: a.token });
      expect(list.status).toBe(200);
      expect(list.body).toHaveLength(1);
      expect(list.body[0].key).toMatch(/^cb_.{5}•+$/);
      expect(list.text).not.toContain(key.slice(8));

      const patched = await app.client.patch(
        `${KEYS}/${created.body.id}`,
        { allowed_origin: null, name: 'Docs site' },
        { token: a.token },
      );
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ name: 'Docs site', allowed_origin: null });
      expect(patched.body.key).toMatch(/•/);

      const bad = await app.client.post(
        KEYS,
        { name: '', allowed_origin: 'https://shop.example.com/path' },
        { token: a.token },
      );
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.errors).sort()).toEqual(['allowed_origin', 'name']);

      const other = await chatbotAccount(app);
      expect(
        (await app.client.delete(`${KEYS}/${created.body.id}`, undefined, { token: other.token })).status,
      ).toBe(404);
      expect(
        (await app.client.patch(`${KEYS}/${created.body.id}`, { name: 'x' }, { token: other.token })).status,
      ).toBe(404);
      expect((await ask(app, key)).status).toBe(200);

      const revoked = await app.client.delete(`${KEYS}/${created.body.id}`, undefined, { token: a.token });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({});
      expect((await app.client.get(KEYS, { token: a.token })).body).toEqual([]);
      expect(
        (await app.client.delete(`${KEYS}/${created.body.id}`, undefined, { token: a.token })).status,
      ).toBe(404);
      expect((await app.client.delete(`${KEYS}/abc`, undefined, { token: a.token })).status).toBe(404);
    });
  });

  describe('plan command (operator CLI)', () => {
    it('sets the plan of an account over DATABASE_URL', async () => {
      const a = await chatbotAccount(app, { plan: 'free' });
      const env = { ...process.env, DATABASE_URL: app.cfg.database.url };
      const out = await run(
        'node',
        [CLI, 'plan', 'set', '--account', String(a.accountId), '--plan', 'business'],
        {
          env,
        },
      );
      expect(out.stdout).toContain(`Account ${a.accountId}`);
      expect(out.stdout).toContain('plan free -> business');
      const s = await app.client.get(SETTINGS, { token: a.token });
      expect(s.body).toMatchObject({ plan: 'business', chatbot_enabled: true, rate_limit_per_hour: 100 });
      const got = await run('node', [CLI, 'plan', 'get', '--account', String(a.accountId)], { env });
      expect(got.stdout).toContain('plan business');

      await expect(
        run('node', [CLI, 'plan', 'set', '--account', String(a.accountId), '--plan', 'platinum'], { env }),
      ).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining('--plan must be one of free, pro, business'),
      });
      await expect(
        run('node', [CLI, 'plan', 'set', '--account', '999999', '--plan', 'pro'], { env }),
      ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('No account with id 999999') });
    });
  });

  describe('key authentication on the chatbot endpoints', () => {
    it('answers a live cb_ key with { answer, citations, support_email }', async () => {
      const a = await chatbotAccount(app, { supportEmail: 'help@shop.example.com' });
      const { key } = await createKey(app, a.token);
      const res = await ask(app, key, { question: 'What is the refund window?' });
      expect(res.status).toBe(200);
      // A new account has no docsets: the answer says so instead of guessing.
      expect(res.body).toEqual({
        answer: NO_ANSWER_TEXT,
        citations: [],
        support_email: 'help@shop.example.com',
      });
    });

    it('401 without a key, with an unknown or revoked key, and with an API token', async () => {
      const a = await chatbotAccount(app);
      const { id, key } = await createKey(app, a.token);
      for (const path of [ASK, SUPPORT]) {
        const body = path === ASK ? { question: 'hi' } : { message: 'hi' };
        const missing = await app.client.post(path, body);
        expect(missing.status).toBe(401);
        expect(missing.body).toEqual({ error: 'Missing or invalid authorization header' });
        expect(missing.headers['www-authenticate']).toBe('Bearer realm="docqa-chatbot"');
        const unknown = await app.client.post(path, body, { token: `cb_${'x'.repeat(43)}` });
        expect(unknown.status).toBe(401);
        expect(unknown.body).toEqual({ error: 'Invalid chatbot key' });
        const apiToken = await app.client.post(path, body, { token: a.token });
        expect(apiToken.status).toBe(401);
        expect(apiToken.body).toEqual({ error: 'This endpoint accepts only a cb_ chatbot key' });
      }
      await app.client.delete(`${KEYS}/${id}`, undefined, { token: a.token });
      const revoked = await ask(app, key);
      expect(revoked.status).toBe(401);
      expect(revoked.body).toEqual({ error: 'Invalid chatbot key' });
      // And a cb_ key never works where an API token is needed.
      expect((await app.client.get('/api/v1/me', { token: key })).status).toBe(401);
    });

    it('403 PLAN_REQUIRED unless the account is on Pro or Business', async () => {
      const a = await chatbotAccount(app, { plan: 'free', supportEmail: 'help@shop.example.com' });
      const { key } = await createKey(app, a.token);
      const res = await ask(app, key);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'The chatbot needs a Pro or Business plan' });
      expect((await app.client.post(SUPPORT, { message: 'hi' }, { token: key })).status).toBe(403);
      await setPlan(app, a.accountId, 'business');
      expect((await ask(app, key)).status).toBe(200);
      await setPlan(app, a.accountId, 'pro');
      expect((await ask(app, key)).status).toBe(200);
      await setPlan(app, a.accountId, 'free');
      expect((await ask(app, key)).status).toBe(403);
    });

    it('400 with errors by field for a malformed question', async () => {
      const a = await chatbotAccount(app);
      const { key } = await createKey(app, a.token);
      const res = await ask(app, key, {
        question: '',
        format: 'pdf',
        stream: 'yes',
        past_messages: [{ role: 'x' }],
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(['format', 'past_messages', 'question', 'stream']);
    });
  });

  describe('origin lock', () => {
    const SHOP = 'https://shop.example.com';

    it('admits the allowed Origin, or the allowed origin in Referer when there is no Origin', async () => {
      const a = await chatbotAccount(app);
      const { key } = await createKey(app, a.token, { allowed_origin: SHOP });
      expect((await ask(app, key, undefined, { origin: SHOP })).status).toBe(200);
      expect((await ask(app, key, undefined, { referer: `${SHOP}/help/faq?x=1#top` })).status).toBe(200);
      // `Origin: null` (sandboxed page) says nothing: the Referer decides.
      expect((await ask(app, key, undefined, { origin: 'null', referer: `${SHOP}/` })).status).toBe(200);
    });

    it('403 ORIGIN_NOT_ALLOWED for another origin, a missing origin, or another port or scheme', async () => {
      const a = await chatbotAccount(app, { supportEmail: 'help@shop.example.com' });
      const { key } = await createKey(app, a.token, { allowed_origin: SHOP });
      const cases: Array<Record<string, string>> = [
        { origin: 'https://evil.example.com' },
        { origin: 'https://shop.example.com:8443' },
        { origin: 'http://shop.example.com' },
        { origin: 'https://shop.example.com.evil.example' },
        { referer: 'https://evil.example.com/shop.example.com' },
        // Origin wins over Referer.
        { origin: 'https://evil.example.com', referer: `${SHOP}/` },
        {},
      ];
      for (const headers of cases) {
        const res = await ask(app, key, undefined, headers);
        expect({ headers, status: res.status }).toEqual({ headers, status: 403 });
        expect(res.body.error).toMatch(/not allowed for this chatbot key|needs an Origin or Referer/);
      }
      const support = await app.client.post(
        SUPPORT,
        { message: 'hi' },
        { token: key, headers: { origin: 'https://evil.example.com' } },
      );
      expect(support.status).toBe(403);
      // A key without a lock answers any origin, and none.
      const open = await createKey(app, a.token);
      expect((await ask(app, open.key, undefined, { origin: 'https://anyone.example' })).status).toBe(200);
      expect((await ask(app, open.key)).status).toBe(200);
    });
  });

  describe('CORS', () => {
    const SHOP = 'https://shop.example.com';

    it('answers preflights of the two chatbot endpoints and echoes the origin', async () => {
      for (const path of [ASK, SUPPORT]) {
        const pre = await app.client.request('OPTIONS', path, {
          headers: {
            origin: SHOP,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, content-type',
          },
        });
        expect(pre.status).toBe(204);
        expect(pre.headers['access-control-allow-origin']).toBe(SHOP);
        expect(String(pre.headers['access-control-allow-methods'])).toContain('POST');
        expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
        expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('content-type');
        expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
        expect(String(pre.headers.vary)).toContain('Origin');
      }
      const a = await chatbotAccount(app);
      const { key } = await createKey(app, a.token, { allowed_origin: SHOP });
      const ok = await ask(app, key, undefined, { origin: SHOP });
      expect(ok.headers['access-control-allow-origin']).toBe(SHOP);
      // Errors are readable by the page too, so the widget can show them.
      const denied = await ask(app, key, undefined, { origin: 'https://evil.example.com' });
      expect(denied.status).toBe(403);
      expect(denied.headers['access-control-allow-origin']).toBe('https://evil.example.com');
    });

    it('keeps every other endpoint same-origin', async () => {
      const a = await chatbotAccount(app);
      for (const path of [
        '/api/v1/me',
        SETTINGS,
        KEYS,
        '/api/v1/document_proxy/health',
        '/api/v1/chatbot/files/x',
      ]) {
        const pre = await app.client.request('OPTIONS', path, {
          headers: { origin: SHOP, 'access-control-request-method': 'GET' },
        });
        expect({ path, acao: pre.headers['access-control-allow-origin'] }).toEqual({ path, acao: undefined });
        const get = await app.client.get(path, { token: a.token, headers: { origin: SHOP } });
        expect({ path, acao: get.headers['access-control-allow-origin'] }).toEqual({ path, acao: undefined });
      }
    });
  });

  describe('OpenAPI and the widget files', () => {
    it('documents the chatbot endpoints, the extensions and the widget', async () => {
      const doc = await app.client.get('/api/docs-json');
      expect(doc.status).toBe(200);
      const paths = doc.body.paths;
      expect(Object.keys(paths['/api/v1/chatbot/ask_question'])).toEqual(['post']);
      const askOp = paths['/api/v1/chatbot/ask_question'].post;
      expect(Object.keys(askOp.responses).sort()).toEqual(['200', '400', '401', '403', '429', '503']);
      expect(Object.keys(askOp.responses['200'].content).sort()).toEqual([
        'application/json',
        'text/event-stream',
      ]);
      expect(Object.keys(paths['/api/v1/support_emails'].post.responses).sort()).toEqual([
        '200',
        '400',
        '401',
        '403',
        '429',
        '503',
      ]);
      expect(Object.keys(paths['/api/v1/chatbot/settings']).sort()).toEqual(['get', 'patch']);
      expect(Object.keys(paths['/api/v1/chatbot/keys']).sort()).toEqual(['get', 'post']);
      expect(Object.keys(paths['/api/v1/chatbot/keys/{id}']).sort()).toEqual(['delete', 'patch']);
      expect(paths['/api/v1/chatbot/files/{token}'].get).toBeDefined();
      expect(paths['/widget.js'].get).toBeDefined();
      expect(paths['/widget/demo'].get).toBeDefined();
      for (const name of ['ChatbotAnswerDto', 'ChatbotCitationDto', 'ChatbotDoneEventDto', 'SupportEmailDto'])
        expect(doc.body.components.schemas[name]).toBeDefined();
    });

    it('serves /widget.js as cacheable JavaScript and the demo page with the key escaped', async () => {
      const js = await app.client.get('/widget.js');
      expect(js.status).toBe(200);
      expect(js.headers['content-type']).toBe('application/javascript; charset=utf-8');
      expect(js.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(js.text).toContain('docqaWidget(window, document, document.currentScript)');
      expect(js.headers['access-control-allow-origin']).toBeUndefined();

      const demo = await app.client.get('/widget/demo?key=cb_demo-KEY_123');
      expect(demo.status).toBe(200);
      expect(demo.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(demo.headers['content-security-policy']).toContain("script-src 'self'");
      expect(demo.text).toContain('<script src="/widget.js" data-key="cb_demo-KEY_123"');
      // Anything that is not a key shape is not put in the page at all.
      const evil = await app.client.get(
        `/widget/demo?key=${encodeURIComponent('cb_x"><script>alert(1)</script>')}`,
      );
      expect(evil.status).toBe(200);
      expect(evil.text).not.toContain('alert(1)');
      expect(evil.text).toContain('No key given');
    });
  });

  describe('account deletion', () => {
    it("removes the account's keys and their rate-limit counters", async () => {
      const a = await chatbotAccount(app);
      const { id, key } = await createKey(app, a.token);
      expect((await ask(app, key)).status).toBe(200);
      const before = await db.query('SELECT count(*)::int AS n FROM rate_limit_windows WHERE key = $1', [
        `chatbot:key:${id}`,
      ]);
      expect(before.rows[0].n).toBe(1);
      expect((await app.client.delete('/api/v1/me', undefined, { token: a.token })).status).toBe(200);
      const after = await db.query(
        `SELECT (SELECT count(*)::int FROM rate_limit_windows WHERE key = $1) AS windows,
                (SELECT count(*)::int FROM chatbot_keys WHERE id = $2) AS keys`,
        [`chatbot:key:${id}`, id],
      );
      expect(after.rows[0]).toEqual({ windows: 0, keys: 0 });
      expect((await ask(app, key)).status).toBe(401);
    });
  });
});
