import { createHash, randomBytes } from 'node:crypto';
import type { Client } from 'pg';
import { startTestApp, TestApp } from '../support/app';
import { ScopeProbeModule } from './scope-probe.module';
import { dbClient, login, register } from './support';

describe('Account API: API tokens (extension), scopes and the bearer guard', () => {
  let app: TestApp;
  let db: Client;

  beforeAll(async () => {
    app = await startTestApp({ extraModules: [ScopeProbeModule] });
    db = await dbClient(app);
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
  });

  it('lists tokens masked, creates one shown once, and revokes it (then 401)', async () => {
    const u = await register(app);
    const created = await app.client.post('/api/v1/api_tokens', { name: 'CI' }, { token: u.token });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'CI',
      token: expect.stringMatching(/^dq_[A-Za-z0-9_-]{43}$/),
      default: false,
      read_only: false,
      docset_names: null,
      created_at: expect.any(String),
      last_used_at: null,
    });
    const ci = created.body.token as string;
    expect(ci).not.toBe(u.token);
    expect((await app.client.get('/api/v1/me', { token: ci })).status).toBe(200);

    const list = await app.client.get('/api/v1/api_tokens', { token: u.token });
    expect(list.status).toBe(200);
    expect(list.body.map((t: { name: string }) => t.name)).toEqual(['Default', 'CI']);
    for (const t of list.body) {
      expect(t.token).toMatch(/^dq_.{5}•+$/);
      expect(list.text).not.toContain(ci.slice(8));
      expect(list.text).not.toContain(u.token.slice(8));
    }
    expect(list.body[0].default).toBe(true);

    const revoked = await app.client.delete(`/api/v1/api_tokens/${created.body.id}`, undefined, {
      token: u.token,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({});
    const after = await app.client.get('/api/v1/me', { token: ci });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: expect.any(String) });
    expect((await app.client.get('/api/v1/api_tokens', { token: u.token })).body).toHaveLength(1);
    // Revoking again, or a token of someone else, is 404.
    expect(
      (await app.client.delete(`/api/v1/api_tokens/${created.body.id}`, undefined, { token: u.token }))
        .status,
    ).toBe(404);
    const other = await register(app);
    expect(
      (await app.client.delete(`/api/v1/api_tokens/${u.tokenId}`, undefined, { token: other.token })).status,
    ).toBe(404);
    expect((await app.client.get('/api/v1/me', { token: u.token })).status).toBe(200);
    expect((await app.client.delete('/api/v1/api_tokens/abc', undefined, { token: u.token })).status).toBe(
      404,
    );
  });

  it('validates token creation (422)', async () => {
    const u = await register(app);
    const res = await app.client.post(
      '/api/v1/api_tokens',
      { name: '', read_only: 'yes', docset_names: 'handbook' },
      { token: u.token },
    );
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['docset_names', 'name', 'read_only']);
    expect((await app.client.post('/api/v1/api_tokens', { name: 'x' })).status).toBe(401);
  });

  it('a revoked default token is replaced by a new one at the next login', async () => {
    const u = await register(app);
    await app.client.delete(`/api/v1/api_tokens/${u.tokenId}`, undefined, { token: u.token });
    expect((await app.client.get('/api/v1/me', { token: u.token })).status).toBe(401);
    const first = await login(app, u.email, u.password);
    expect(first.status).toBe(200);
    expect(first.body.token).not.toBe(u.token);
    const second = await login(app, u.email, u.password);
    expect(second.body.token).toBe(first.body.token);
  });

  it('a read-only token can read and ask, but not write or manage the account (403)', async () => {
    const u = await register(app);
    const { body } = await app.client.post(
      '/api/v1/api_tokens',
      { name: 'ro', read_only: true },
      { token: u.token },
    );
    expect(body.read_only).toBe(true);
    const ro = body.token as string;
    expect((await app.client.get('/api/v1/me', { token: ro })).status).toBe(200);
    expect((await app.client.get('/api/v1/accounts', { token: ro })).status).toBe(200);
    expect((await app.client.get('/api/v1/api_tokens', { token: ro })).status).toBe(200);

    const forbidden = [
      await app.client.post('/api/v1/api_tokens', { name: 'escalate' }, { token: ro }),
      await app.client.patch(
        '/api/v1/password',
        {
          user: {
            current_password: u.password,
            password: 'new-password',
            password_confirmation: 'new-password',
          },
        },
        { token: ro },
      ),
      await app.client.delete(`/api/v1/api_tokens/${u.tokenId}`, undefined, { token: ro }),
      await app.client.post('/api/v1/two_factor', undefined, { token: ro }),
      await app.client.post('/api/v1/accounts', { name: 'team' }, { token: ro }),
      await app.client.delete('/api/v1/me', undefined, { token: ro }),
    ];
    for (const res of forbidden) {
      expect(res.status).toBe(403);
      expect(Object.keys(res.body)).toEqual(['error']);
    }
    // Nothing happened.
    expect((await login(app, u.email, u.password)).status).toBe(200);
    expect((await app.client.get('/api/v1/me', { token: u.token })).status).toBe(200);

    // Document API: reading and asking work, writing is 403 in that surface's body.
    const ask = await app.client.post(
      '/api/v1/document_proxy/__scope_probe/ask',
      { docSetNames: ['any'] },
      { token: ro },
    );
    expect(ask.status).toBe(201);
    for (const path of ['index', 'delete']) {
      const res = await app.client.post(`/api/v1/document_proxy/__scope_probe/${path}`, {}, { token: ro });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'This API token is read-only', errorCode: 'FORBIDDEN' });
    }
  });

  it('a docset-limited token is refused other docsets (403) and account management', async () => {
    const u = await register(app);
    const { body } = await app.client.post(
      '/api/v1/api_tokens',
      { name: 'hr only', docset_names: ['hr', 'hr'] },
      { token: u.token },
    );
    expect(body.docset_names).toEqual(['hr']);
    const limited = body.token as string;
    const whoami = await app.client.get('/api/v1/document_proxy/__scope_probe/whoami', { token: limited });
    expect(whoami.body).toEqual({
      userId: u.id,
      accountId: expect.any(Number),
      tokenId: body.id,
      scope: { readOnly: false, docSetNames: ['hr'] },
    });
    const ok = await app.client.post(
      '/api/v1/document_proxy/__scope_probe/ask',
      { docSetNames: ['hr'] },
      { token: limited },
    );
    expect(ok.status).toBe(201);
    const no = await app.client.post(
      '/api/v1/document_proxy/__scope_probe/ask',
      { docSetNames: ['hr', 'finance'] },
      { token: limited },
    );
    expect(no.status).toBe(403);
    expect(no.body.errorCode).toBe('FORBIDDEN');
    expect(
      (await app.client.post('/api/v1/document_proxy/__scope_probe/index', {}, { token: limited })).status,
    ).toBe(201);
    expect((await app.client.post('/api/v1/api_tokens', { name: 'widen' }, { token: limited })).status).toBe(
      403,
    );
    // The full token is unrestricted.
    const full = await app.client.get('/api/v1/document_proxy/__scope_probe/whoami', { token: u.token });
    expect(full.body.scope).toEqual({ readOnly: false, docSetNames: null });
    const personal = await db.query('SELECT id FROM accounts WHERE owner_id = $1 AND personal', [u.id]);
    expect(full.body.accountId).toBe(personal.rows[0].id);
  });

  it('refuses cb_ chatbot keys on every ApiTokenGuard endpoint (401), in each surface body', async () => {
    const u = await register(app);
    const account = await db.query('SELECT id FROM accounts WHERE owner_id = $1', [u.id]);
    const key = `cb_${randomBytes(32).toString('base64url')}`;
    await db.query('INSERT INTO chatbot_keys (account_id, key_hash, key_prefix) VALUES ($1, $2, $3)', [
      account.rows[0].id,
      createHash('sha256').update(key).digest('hex'),
      key.slice(0, 8),
    ]);
    const accountApi = [
      await app.client.get('/api/v1/me', { token: key }),
      await app.client.get('/api/v1/accounts', { token: key }),
      await app.client.get('/api/v1/api_tokens', { token: key }),
      await app.client.post('/api/v1/api_tokens', { name: 'x' }, { token: key }),
      await app.client.patch('/api/v1/password', { user: {} }, { token: key }),
      await app.client.post('/api/v1/two_factor', undefined, { token: key }),
      await app.client.post('/api/v1/accounts', { name: 'x' }, { token: key }),
      await app.client.delete('/api/v1/me', undefined, { token: key }),
    ];
    for (const res of accountApi) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Chatbot keys are accepted only by the chatbot endpoints' });
    }
    const doc = await app.client.get('/api/v1/document_proxy/__scope_probe/whoami', { token: key });
    expect(doc.status).toBe(401);
    expect(doc.body).toEqual({
      message: 'Chatbot keys are accepted only by the chatbot endpoints',
      errorCode: 'UNAUTHENTICATED',
    });
    expect((await app.client.get('/api/v1/me', { token: u.token })).status).toBe(200);
  });

  it('renders the Document API 401 body for a missing or bad token there', async () => {
    const missing = await app.client.get('/api/v1/document_proxy/__scope_probe/whoami');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      message: 'Missing or invalid authorization header',
      errorCode: 'UNAUTHENTICATED',
    });
    const bad = await app.client.get('/api/v1/document_proxy/__scope_probe/whoami', { token: 'dq_nope' });
    expect(bad.status).toBe(401);
    expect(bad.body.errorCode).toBe('UNAUTHENTICATED');
  });

  it('records when a token was last used', async () => {
    const u = await register(app);
    await app.client.get('/api/v1/me', { token: u.token });
    await new Promise((r) => setTimeout(r, 200));
    const row = await db.query('SELECT last_used_at FROM api_tokens WHERE id = $1', [u.tokenId]);
    expect(row.rows[0].last_used_at).toBeInstanceOf(Date);
  });
});
