import type { HttpResponse } from '../support/http';
import { startTestApp, TestApp } from '../support/app';
import { dbClient, expectNoneOf, login, register, totpCode, uniqueEmail } from './support';

/**
 * A whole Account API session, then: no response carries a password, a hash, a ciphertext or a
 * token other than the one it issues, and no log line carries any of them.
 */
describe('Account API: secrets stay out of responses and logs', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ env: { LOG_LEVEL: 'debug' } });
  });
  afterAll(async () => app?.close());

  it('never echoes passwords, hashes or other tokens', async () => {
    const seen: Array<{ what: string; res: HttpResponse; issues: string[] }> = [];
    const record = (what: string, res: HttpResponse, issues: string[] = []) => {
      seen.push({ what, res, issues });
      return res;
    };
    const passwords = ['first-password-1', 'second-password-2', 'wrong-password-3', 'other-password-4'];
    const email = uniqueEmail('secret');

    const reg = record(
      'register',
      await app.client.post('/api/v1/users', {
        user: { email, password: passwords[0], password_confirmation: passwords[0], name: 'S' },
      }),
    );
    const token: string = reg.body.user.api_tokens[0].token;
    seen[0].issues.push(token);
    const other = await register(app, { password: passwords[3] });

    record('login', await login(app, email, passwords[0]), [token]);
    record('failed login', await login(app, email, passwords[2]));
    record('me', await app.client.get('/api/v1/me', { token }));
    record('accounts', await app.client.get('/api/v1/accounts', { token }));
    const created = await app.client.post('/api/v1/api_tokens', { name: 'ci' }, { token });
    const ci: string = created.body.token;
    record('create token', created, [ci]);
    record('list tokens', await app.client.get('/api/v1/api_tokens', { token }));
    record(
      'bad password change',
      await app.client.patch(
        '/api/v1/password',
        {
          user: {
            current_password: passwords[2],
            password: passwords[1],
            password_confirmation: passwords[1],
          },
        },
        { token },
      ),
    );
    record(
      'invalid registration',
      await app.client.post('/api/v1/users', {
        user: { email: 'bad', password: passwords[2], password_confirmation: passwords[1] },
      }),
    );
    const enrol = await app.client.post('/api/v1/two_factor', undefined, { token });
    const otpSecret: string = enrol.body.secret;
    record('enrol', enrol, [otpSecret]);
    record(
      'confirm',
      await app.client.post('/api/v1/two_factor/confirm', { otp_attempt: totpCode(otpSecret) }, { token }),
    );
    record('login needing otp', await login(app, email, passwords[0]));
    record('login with otp', await login(app, email, passwords[0], totpCode(otpSecret, 1)), [token]);
    record(
      'password change',
      await app.client.patch(
        '/api/v1/password',
        {
          user: {
            current_password: passwords[0],
            password: passwords[1],
            password_confirmation: passwords[1],
          },
        },
        { token },
      ),
    );
    record('cb key', await app.client.get('/api/v1/me', { token: `cb_${'x'.repeat(40)}` }));
    record('revoke', await app.client.delete(`/api/v1/api_tokens/${created.body.id}`, undefined, { token }));
    record('revoked', await app.client.get('/api/v1/me', { token: ci }));

    // Everything secret the database holds for these users, read before deletion.
    const db = await dbClient(app);
    const rows = await db.query(
      `SELECT u.password_hash, u.otp_secret_enc, t.token_hash, t.token_enc
         FROM users u LEFT JOIN api_tokens t ON t.user_id = u.id WHERE u.id = ANY($1::int[])`,
      [[reg.body.user.id, other.id]],
    );
    await db.end();
    const stored = rows.rows.flatMap((r: Record<string, string | null>) =>
      [r.password_hash, r.otp_secret_enc, r.token_hash, r.token_enc].filter(
        (v): v is string => !!v && v.length > 8,
      ),
    );
    expect(stored.length).toBeGreaterThanOrEqual(5);

    record('delete', await app.client.delete('/api/v1/me', undefined, { token }));
    expect(seen.map((s) => [s.what, s.res.status])).toEqual([
      ['register', 200],
      ['login', 200],
      ['failed login', 401],
      ['me', 200],
      ['accounts', 200],
      ['create token', 200],
      ['list tokens', 200],
      ['bad password change', 422],
      ['invalid registration', 422],
      ['enrol', 200],
      ['confirm', 200],
      ['login needing otp', 422],
      ['login with otp', 200],
      ['password change', 200],
      ['cb key', 401],
      ['revoke', 200],
      ['revoked', 401],
      ['delete', 200],
    ]);

    const tokens = [token, ci, other.token];
    for (const { what, res, issues } of seen) {
      const text = res.text + JSON.stringify(res.headers);
      expectNoneOf(
        text,
        [...passwords, ...stored, ...tokens.filter((t) => !issues.includes(t))],
        `response "${what}"`,
      );
      if (!issues.includes(otpSecret)) expectNoneOf(text, [otpSecret], `response "${what}"`);
    }

    // Give the file logger a moment, then scan every line.
    await new Promise((r) => setTimeout(r, 200));
    const logs = app.logs();
    expect(logs).toContain('login failed');
    expect(logs).toContain('user registered');
    expectNoneOf(logs, [...passwords, ...stored, ...tokens, otpSecret, email], 'log file');
    for (const line of logs.split('\n').filter(Boolean)) {
      const entry = JSON.parse(line);
      expect(entry.stack).toBeUndefined();
      expect(entry.err?.stack).toBeUndefined();
    }
  });
});
