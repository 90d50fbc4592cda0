import type { Client } from 'pg';
import { startTestApp, TestApp } from '../support/app';
import { dbClient, login, register, uniqueEmail } from './support';

describe('Account API: login (POST /api/v1/auth)', () => {
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

  it('returns the same default token on every login, with any letter case of the e-mail', async () => {
    const u = await register(app);
    const first = await login(app, u.email, u.password);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ token: u.token });
    const second = await login(app, u.email.toUpperCase(), u.password);
    expect(second.body).toEqual({ token: u.token });
    const tokens = await db.query('SELECT count(*)::int AS n FROM api_tokens WHERE user_id = $1', [u.id]);
    expect(tokens.rows[0].n).toBe(1);
  });

  it('answers a wrong password and an unknown e-mail with the same 401 text', async () => {
    const u = await register(app);
    const wrong = await login(app, u.email, 'not-the-password');
    const unknown = await login(app, uniqueEmail('nobody'), 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid email or password.' });
    expect(unknown.body).toEqual(wrong.body);
  });

  it('takes about the same time for an unknown e-mail as for a wrong password', async () => {
    const u = await register(app);
    const time = async (email: string) => {
      const t0 = process.hrtime.bigint();
      await login(app, email, 'not-the-password');
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 4; i++) {
      known.push(await time(u.email));
      unknown.push(await time(uniqueEmail('ghost')));
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    // Both spend one argon2id verification; without the dummy hash an unknown e-mail would be
    // an order of magnitude faster.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.5);
  });

  it('is 400 when email or password is missing', async () => {
    for (const body of [{}, { email: 'a@example.com' }, { password: 'x' }, { email: '', password: '' }]) {
      const res = await app.client.post('/api/v1/auth', body);
      expect(res.status).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
  });

  it('throttles repeated failures for one e-mail: 429 with limit, reset_at and Retry-After', async () => {
    const u = await register(app);
    for (let i = 0; i < 10; i++) {
      const res = await login(app, u.email, `wrong-${i}`);
      expect(res.status).toBe(401);
    }
    const throttled = await login(app, u.email, u.password);
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({
      error: expect.stringContaining('Too many'),
      limit: 10,
      reset_at: expect.any(String),
    });
    const resetAt = Date.parse(throttled.body.reset_at);
    expect(new Date(resetAt).toISOString()).toBe(throttled.body.reset_at);
    expect(resetAt).toBeGreaterThan(Date.now());
    expect(resetAt).toBeLessThanOrEqual(Date.now() + 15 * 60 * 1000);
    const retryAfter = Number(throttled.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Other addresses are not affected; the counters hold no e-mail address.
    const other = await register(app);
    expect((await login(app, other.email, other.password)).status).toBe(200);
    const rows = await db.query('SELECT key, count FROM rate_limit_windows');
    expect(JSON.stringify(rows.rows)).not.toContain(u.email.split('@')[0]);
    expect(
      rows.rows.some(
        (r: { key: string; count: number }) => r.key.startsWith('login:email:') && r.count >= 10,
      ),
    ).toBe(true);
  });

  it('does not count successful logins', async () => {
    const u = await register(app);
    for (let i = 0; i < 12; i++) expect((await login(app, u.email, u.password)).status).toBe(200);
  });
});

describe('Account API: login throttling per client address', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => app?.close());

  it('refuses every login from an address after 50 failures, whichever e-mail', async () => {
    const u = await register(app);
    for (let batch = 0; batch < 5; batch++) {
      const results = await Promise.all(
        Array.from({ length: 10 }, () => login(app, uniqueEmail('spray'), 'password-guess')),
      );
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(401));
    }
    const throttled = await login(app, u.email, u.password);
    expect(throttled.status).toBe(429);
    expect(throttled.body.limit).toBe(50);
    expect(throttled.headers['retry-after']).toBeDefined();
  });
});
