import type { Client } from 'pg';
import { UsersService } from '@docqa/accounts';
import { startTestApp, TestApp } from '../support/app';
import { dbClient, login, register, uniqueEmail } from './support';

describe('Account API: registration, profile, password, accounts', () => {
  let app: TestApp;
  let db: Client;

  beforeAll(async () => {
    app = await startTestApp();
    db = await dbClient(app);
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
  });

  describe('POST /api/v1/users', () => {
    it('creates the user, a personal account with the user as owner and member, and a default token', async () => {
      const email = uniqueEmail('Ada');
      const res = await app.client.post('/api/v1/users', {
        user: {
          email,
          password: 'correct horse',
          password_confirmation: 'correct horse',
          name: 'Ada Lovelace',
        },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        user: {
          id: expect.any(Number),
          email,
          name: 'Ada Lovelace',
          api_tokens: [
            {
              id: expect.any(Number),
              name: 'Default',
              token: expect.stringMatching(/^dq_[A-Za-z0-9_-]{43}$/),
            },
          ],
        },
      });
      const id = res.body.user.id;
      const accounts = await db.query('SELECT * FROM accounts WHERE owner_id = $1', [id]);
      expect(accounts.rows).toHaveLength(1);
      expect(accounts.rows[0]).toMatchObject({ personal: true, owner_id: id });
      const members = await db.query('SELECT * FROM account_users WHERE user_id = $1', [id]);
      expect(members.rows).toEqual([
        expect.objectContaining({ account_id: accounts.rows[0].id, role: 'owner' }),
      ]);
      const tokens = await db.query('SELECT * FROM api_tokens WHERE user_id = $1', [id]);
      expect(tokens.rows).toHaveLength(1);
      expect(tokens.rows[0]).toMatchObject({ account_id: accounts.rows[0].id, is_default: true });
      // Stored as SHA-256 hex + ciphertext, never in clear.
      const token = res.body.user.api_tokens[0].token as string;
      expect(tokens.rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(tokens.rows[0])).not.toContain(token);
      const users = await db.query('SELECT password_hash FROM users WHERE id = $1', [id]);
      expect(users.rows[0].password_hash).toMatch(/^\$argon2id\$/);
      // The token works.
      expect((await app.client.get('/api/v1/me', { token })).status).toBe(200);
    });

    it('defaults the name to empty and accepts terms_of_service when not required', async () => {
      const res = await app.client.post('/api/v1/users', {
        user: {
          email: uniqueEmail(),
          password: 'tidal-lantern-7',
          password_confirmation: 'tidal-lantern-7',
          terms_of_service: true,
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.user.name).toBe('');
    });

    it('is 400 without the user object', async () => {
      for (const body of [{}, { email: 'a@b.co' }, { user: 'x' }]) {
        const res = await app.client.post('/api/v1/users', body);
        expect(res.status).toBe(400);
        expect(res.body.error).toContain('user');
      }
      const noBody = await app.client.request('POST', '/api/v1/users');
      expect(noBody.status).toBe(400);
    });

    it.each([
      [
        'missing e-mail',
        { password: 'tidal-lantern-7', password_confirmation: 'tidal-lantern-7' },
        'email',
        "can't be blank",
      ],
      [
        'malformed e-mail',
        { email: 'not-an-email', password: 'tidal-lantern-7', password_confirmation: 'tidal-lantern-7' },
        'email',
        'is invalid',
      ],
      [
        'short password',
        { email: 'x@example.com', password: 'short', password_confirmation: 'short' },
        'password',
        'is too short (minimum is 8 characters)',
      ],
      [
        'missing password',
        { email: 'x@example.com', password_confirmation: 'tidal-lantern-7' },
        'password',
        "can't be blank",
      ],
      [
        'confirmation mismatch',
        { email: 'x@example.com', password: 'tidal-lantern-7', password_confirmation: 'tidal-lantern-8' },
        'password_confirmation',
        "doesn't match Password",
      ],
      [
        'missing confirmation',
        { email: 'x@example.com', password: 'tidal-lantern-7' },
        'password_confirmation',
        "can't be blank",
      ],
      [
        'non-string name',
        {
          email: 'x@example.com',
          password: 'tidal-lantern-7',
          password_confirmation: 'tidal-lantern-7',
          name: 42,
        },
        'name',
        'must be a string',
      ],
    ])('is 422 for %s', async (_what, user, field, message) => {
      const res = await app.client.post('/api/v1/users', { user });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatch(/^Validation failed/);
      expect(res.body.errors[field]).toEqual([message]);
    });

    it.each([
      ['a common password', () => '12345678', 'is too common (it is on lists of leaked passwords)'],
      [
        'a common password in other letter case',
        () => 'PassWord123',
        'is too common (it is on lists of leaked passwords)',
      ],
      ['the e-mail address itself', (email: string) => email, "can't be your e-mail address"],
      [
        'the e-mail address in capitals',
        (email: string) => email.toUpperCase(),
        "can't be your e-mail address",
      ],
    ])('is 422 for %s and creates nothing', async (_what, passwordOf, message) => {
      const email = uniqueEmail('weak');
      const password = passwordOf(email);
      const res = await app.client.post('/api/v1/users', {
        user: { email, password, password_confirmation: password },
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: `Validation failed: Password ${message}`,
        errors: { password: [message] },
      });
      expect((await db.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [email])).rows).toEqual(
        [],
      );
    });

    it('is 422 for an e-mail already taken, whatever its letter case', async () => {
      const u = await register(app);
      const res = await app.client.post('/api/v1/users', {
        user: {
          email: u.email.toUpperCase(),
          password: 'tidal-lantern-7',
          password_confirmation: 'tidal-lantern-7',
        },
      });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ email: ['has already been taken'] });
    });
  });

  describe('REQUIRE_TERMS_OF_SERVICE', () => {
    let strict: TestApp;
    beforeAll(async () => {
      strict = await startTestApp({ env: { REQUIRE_TERMS_OF_SERVICE: 'true' } });
    });
    afterAll(async () => strict?.close());

    it('requires user.terms_of_service when set', async () => {
      const user = {
        email: uniqueEmail(),
        password: 'tidal-lantern-7',
        password_confirmation: 'tidal-lantern-7',
      };
      const refused = await strict.client.post('/api/v1/users', { user });
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual({ terms_of_service: ['must be accepted'] });
      const no = await strict.client.post('/api/v1/users', { user: { ...user, terms_of_service: false } });
      expect(no.status).toBe(422);
      const ok = await strict.client.post('/api/v1/users', { user: { ...user, terms_of_service: true } });
      expect(ok.status).toBe(200);
      const c = await dbClient(strict);
      const row = await c.query('SELECT terms_accepted_at FROM users WHERE id = $1', [ok.body.user.id]);
      await c.end();
      expect(row.rows[0].terms_accepted_at).toBeInstanceOf(Date);
    });
  });

  describe('GET /api/v1/me', () => {
    it('returns id, name, a served avatar, a verifiable sgid and an escaped HTML fragment', async () => {
      const name = `<img src=x onerror="alert('x')"> & Co`;
      const u = await register(app, { name });
      const res = await app.client.get('/api/v1/me', { token: u.token });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['avatar_url', 'content', 'id', 'name', 'sgid']);
      expect(res.body.id).toBe(u.id);
      expect(res.body.name).toBe(name);

      // The avatar is served by this service, as SVG, without a credential.
      const avatarUrl = new URL(res.body.avatar_url);
      expect(avatarUrl.origin).toBe(app.client.baseUrl);
      // The URL comes from the service's public base URL, not from the client's Host header.
      const spoofed = await app.client.get('/api/v1/me', {
        token: u.token,
        headers: { host: 'evil.example.com' },
      });
      expect(spoofed.status).toBe(200);
      expect(spoofed.body.avatar_url).toBe(res.body.avatar_url);
      expect(spoofed.body.content).not.toContain('evil.example.com');
      expect(avatarUrl.pathname).toBe(`/api/v1/users/${u.id}/avatar.svg`);
      const avatar = await app.client.get(avatarUrl.pathname + avatarUrl.search);
      expect(avatar.status).toBe(200);
      expect(avatar.headers['content-type']).toContain('image/svg+xml');
      expect(avatar.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(avatar.text).toContain('>IC</text>');
      // Not enumerable: a missing or wrong signature is 404.
      expect((await app.client.get(avatarUrl.pathname)).status).toBe(404);
      expect((await app.client.get(`/api/v1/users/${u.id + 1}/avatar.svg${avatarUrl.search}`)).status).toBe(
        404,
      );

      // sgid: signed gid://docqa/User/{id}, verifiable with the function the service provides.
      const users = app.api.app.get(UsersService);
      expect(Buffer.from(res.body.sgid.split('--')[0], 'base64url').toString()).toBe(
        `gid://docqa/User/${u.id}`,
      );
      expect(users.verifySgid(res.body.sgid)).toBe(u.id);
      expect(users.verifySgid(res.body.sgid.slice(0, -2) + 'AA')).toBeNull();

      // content: every user value escaped.
      expect(res.body.content).not.toContain('<img src=x');
      expect(res.body.content).toContain('&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; Co');
      expect(res.body.content).toContain(u.email);
    });

    it('is 401 without a valid token', async () => {
      for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: 'Basic abc' }] as Record<
        string,
        string
      >[]) {
        const res = await app.client.get('/api/v1/me', { headers });
        expect(res.status).toBe(401);
        expect(Object.keys(res.body)).toEqual(['error']);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="docqa"');
      }
      const unknown = await app.client.get('/api/v1/me', { token: 'dq_' + 'A'.repeat(43) });
      expect(unknown.status).toBe(401);
    });
  });

  describe('PATCH /api/v1/password', () => {
    it('changes the password; the old one stops working and the token stays the same', async () => {
      const u = await register(app);
      const res = await app.client.patch(
        '/api/v1/password',
        {
          user: {
            current_password: u.password,
            password: 'brand-new-pw',
            password_confirmation: 'brand-new-pw',
          },
        },
        { token: u.token },
      );
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true });
      const old = await login(app, u.email, u.password);
      expect(old.status).toBe(401);
      const fresh = await login(app, u.email, 'brand-new-pw');
      expect(fresh.status).toBe(200);
      expect(fresh.body.token).toBe(u.token);
    });

    it('is 422 for a common password or the e-mail address, and keeps the old password', async () => {
      const u = await register(app);
      for (const [password, message] of [
        ['iloveyou123', 'is too common (it is on lists of leaked passwords)'],
        [u.email, "can't be your e-mail address"],
      ]) {
        const res = await app.client.patch(
          '/api/v1/password',
          { user: { current_password: u.password, password, password_confirmation: password } },
          { token: u.token },
        );
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual({ password: [message] });
      }
      expect((await login(app, u.email, u.password)).status).toBe(200);
    });

    it('is 422 for a wrong current password, a mismatch or a short password; 400 without user', async () => {
      const u = await register(app);
      const wrong = await app.client.patch(
        '/api/v1/password',
        {
          user: {
            current_password: 'not-my-password',
            password: 'brand-new-pw',
            password_confirmation: 'brand-new-pw',
          },
        },
        { token: u.token },
      );
      expect(wrong.status).toBe(422);
      expect(wrong.body.errors).toEqual({ current_password: ['is invalid'] });
      const mismatch = await app.client.patch(
        '/api/v1/password',
        {
          user: {
            current_password: u.password,
            password: 'brand-new-pw',
            password_confirmation: 'other-pw-1',
          },
        },
        { token: u.token },
      );
      expect(mismatch.status).toBe(422);
      expect(mismatch.body.errors).toEqual({ password_confirmation: ["doesn't match Password"] });
      const short = await app.client.patch(
        '/api/v1/password',
        { user: { current_password: u.password, password: 'short', password_confirmation: 'short' } },
        { token: u.token },
      );
      expect(short.status).toBe(422);
      expect(short.body.errors.password).toEqual(['is too short (minimum is 8 characters)']);
      const missing = await app.client.patch(
        '/api/v1/password',
        { current_password: u.password },
        { token: u.token },
      );
      expect(missing.status).toBe(400);
      const blank = await app.client.patch('/api/v1/password', { user: {} }, { token: u.token });
      expect(blank.status).toBe(422);
      expect(Object.keys(blank.body.errors).sort()).toEqual([
        'current_password',
        'password',
        'password_confirmation',
      ]);
      // Nothing changed.
      expect((await login(app, u.email, u.password)).status).toBe(200);
      expect((await app.client.patch('/api/v1/password', { user: {} })).status).toBe(401);
    });
  });

  describe('accounts', () => {
    it('GET /api/v1/accounts lists the accounts of the user with exactly the spec fields', async () => {
      const u = await register(app, { name: 'Grace Hopper' });
      const res = await app.client.get('/api/v1/accounts', { token: u.token });
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(1);
      const [a] = res.body;
      expect(Object.keys(a).sort()).toEqual(
        ['account_users', 'created_at', 'id', 'name', 'owner_id', 'personal', 'updated_at'].sort(),
      );
      expect(a).toMatchObject({ name: 'Grace Hopper', personal: true, owner_id: u.id });
      expect(new Date(a.created_at).toISOString()).toBe(a.created_at);
      expect(new Date(a.updated_at).toISOString()).toBe(a.updated_at);
      expect(a.account_users).toEqual([{ id: expect.any(Number), user_id: u.id }]);
      expect((await app.client.get('/api/v1/accounts')).status).toBe(401);
    });

    it('POST /api/v1/accounts (extension) creates a team account owned by the caller', async () => {
      const u = await register(app);
      const created = await app.client.post('/api/v1/accounts', { name: '  Research  ' }, { token: u.token });
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({
        name: 'Research',
        personal: false,
        owner_id: u.id,
        account_users: [{ id: expect.any(Number), user_id: u.id }],
      });
      const list = await app.client.get('/api/v1/accounts', { token: u.token });
      expect(list.body.map((a: { personal: boolean }) => a.personal)).toEqual([true, false]);
      const invalid = await app.client.post('/api/v1/accounts', { name: '' }, { token: u.token });
      expect(invalid.status).toBe(422);
      expect(invalid.body.errors).toEqual({ name: ["can't be blank"] });
      // Another user does not see it.
      const other = await register(app);
      const theirs = await app.client.get('/api/v1/accounts', { token: other.token });
      expect(theirs.body.map((a: { id: number }) => a.id)).not.toContain(created.body.id);
    });
  });

  it('documents every Account API endpoint and its error body in OpenAPI', async () => {
    const res = await app.client.get('/api/docs-json');
    expect(res.status).toBe(200);
    const paths = res.body.paths;
    const expected: Array<[string, string]> = [
      ['/api/v1/users', 'post'],
      ['/api/v1/auth', 'post'],
      ['/api/v1/me', 'get'],
      ['/api/v1/me', 'delete'],
      ['/api/v1/password', 'patch'],
      ['/api/v1/accounts', 'get'],
      ['/api/v1/accounts', 'post'],
      ['/api/v1/api_tokens', 'get'],
      ['/api/v1/api_tokens', 'post'],
      ['/api/v1/api_tokens/{id}', 'delete'],
      ['/api/v1/two_factor', 'post'],
      ['/api/v1/two_factor/confirm', 'post'],
      ['/api/v1/two_factor', 'delete'],
      ['/api/v1/users/{id}/avatar.svg', 'get'],
    ];
    for (const [p, m] of expected) {
      const op = paths[p]?.[m];
      expect({ p, m, documented: !!op }).toEqual({ p, m, documented: true });
      const errors = Object.entries(op.responses).filter(([s]) => Number(s) >= 400);
      expect(errors.length).toBeGreaterThan(0);
      for (const [, r] of errors) {
        expect((r as any).content['application/json'].schema.$ref).toBe(
          '#/components/schemas/AccountErrorDto',
        );
      }
    }
    expect(res.body.components.schemas.AccountErrorDto.properties).toHaveProperty('reset_at');
    expect(paths['/api/v1/auth'].post.responses).toHaveProperty('429');
    expect(paths['/api/v1/api_tokens'].post.tags).toContain('Account API: extensions');
  });

  describe('PUBLIC_BASE_URL', () => {
    it('absolute URLs in responses use the configured public base URL', async () => {
      const behindProxy = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://docs.example.com/' } });
      try {
        const u = await register(behindProxy);
        const res = await behindProxy.client.get('/api/v1/me', {
          token: u.token,
          headers: { host: 'evil.example.com' },
        });
        expect(res.status).toBe(200);
        expect(res.body.avatar_url).toMatch(
          new RegExp(`^https://docs\\.example\\.com/api/v1/users/${u.id}/avatar\\.svg\\?s=`),
        );
      } finally {
        await behindProxy.close();
      }
    });
  });
});
