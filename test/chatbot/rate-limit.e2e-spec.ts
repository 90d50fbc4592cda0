import { startTestApp, TestApp } from '../support/app';
import { ask, chatbotAccount, clockOf, createKey, SUPPORT } from './support';

const HOUR = 3600 * 1000;
// A fixed instant (10:10 UTC) so windows, reset_at and Retry-After are exact. In the future, so
// the limiter's purge of windows older than two days never touches them.
const T0 = Date.UTC(2031, 2, 4, 10, 10, 0);

/** Statuses of `n` requests sent all at once, alternating between the given apps. */
async function burst(apps: TestApp[], key: string, n: number): Promise<number[]> {
  const res = await Promise.all(
    Array.from({ length: n }, (_, i) => ask(apps[i % apps.length], key, { question: `burst ${i}` })),
  );
  return res.map((r) => r.status);
}

const count = (xs: number[], v: number) => xs.filter((x) => x === v).length;

describe('Chatbot: hourly rate limits per key (Postgres counters)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
    clockOf(app).set(T0);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('Pro: the 51st request in the hour gets 429 { error, limit, reset_at } with Retry-After; the next hour admits again', async () => {
    const a = await chatbotAccount(app, { plan: 'pro' });
    const { key } = await createKey(app, a.token);
    for (let i = 1; i <= 50; i++) {
      const res = await ask(app, key, { question: `question ${i}` });
      expect({ i, status: res.status }).toEqual({ i, status: 200 });
    }
    const over = await ask(app, key, { question: 'one too many' });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      error: 'Rate limit of 50 requests per hour for this chatbot key exceeded',
      limit: 50,
      reset_at: '2031-03-04T11:00:00.000Z',
    });
    expect(over.headers['retry-after']).toBe(String(50 * 60));
    // The counter is per key (that it is shared with support e-mails is tested with SMTP, in
    // support-email.e2e-spec).
    const other = await createKey(app, a.token);
    expect((await ask(app, other.key)).status).toBe(200);

    // 59 minutes on, still the same window.
    clockOf(app).set(T0 + 49 * 60 * 1000 + 59 * 1000);
    const late = await ask(app, key);
    expect(late.status).toBe(429);
    expect(late.headers['retry-after']).toBe('1');
    // The window resets on the hour.
    clockOf(app).set(T0 + 50 * 60 * 1000);
    try {
      expect((await ask(app, key)).status).toBe(200);
    } finally {
      clockOf(app).set(T0);
    }
  });

  it('Business: 100 per hour, the 101st gets 429 with limit 100', async () => {
    const a = await chatbotAccount(app, { plan: 'business' });
    const { key } = await createKey(app, a.token);
    const statuses = await burst([app], key, 100);
    expect(count(statuses, 200)).toBe(100);
    const over = await ask(app, key);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ limit: 100, reset_at: '2031-03-04T11:00:00.000Z' });
  });

  it('concurrent bursts never admit more than the limit', async () => {
    const a = await chatbotAccount(app, { plan: 'pro' });
    const { key } = await createKey(app, a.token);
    const statuses = await burst([app], key, 90);
    expect({ ok: count(statuses, 200), limited: count(statuses, 429) }).toEqual({ ok: 50, limited: 40 });
  });

  it('holds across api replicas sharing the database, and across a restart', async () => {
    const env = { DATABASE_URL: app.cfg.database.url };
    let replica = await startTestApp({ env });
    try {
      clockOf(replica).set(T0);
      const a = await chatbotAccount(app, { plan: 'pro' });
      const { key } = await createKey(app, a.token);
      // Two replicas, one burst: still exactly 50 admitted.
      const statuses = await burst([app, replica], key, 80);
      expect({ ok: count(statuses, 200), limited: count(statuses, 429) }).toEqual({ ok: 50, limited: 30 });

      // A restarted replica (fresh process state) still sees the spent window.
      await replica.close();
      replica = await startTestApp({ env });
      clockOf(replica).set(T0);
      const after = await ask(replica, key);
      expect(after.status).toBe(429);
      expect(after.body).toMatchObject({ limit: 50, reset_at: '2031-03-04T11:00:00.000Z' });
      clockOf(replica).set(T0 + HOUR);
      expect((await ask(replica, key)).status).toBe(200);
    } finally {
      await replica.close();
    }
  });

  it('requests refused before the counter (bad key, plan, origin) do not use it up', async () => {
    const a = await chatbotAccount(app, { plan: 'pro' });
    const { key } = await createKey(app, a.token, { allowed_origin: 'https://shop.example.com' });
    for (let i = 0; i < 60; i++) {
      expect((await ask(app, key, undefined, { origin: 'https://evil.example' })).status).toBe(403);
    }
    expect((await ask(app, key, undefined, { origin: 'https://shop.example.com' })).status).toBe(200);
  });

  it('only requests that reach an answer or a support e-mail count: malformed (400) and refused (503) ones do not', async () => {
    const a = await chatbotAccount(app, { plan: 'pro' });
    const { key } = await createKey(app, a.token);
    const malformed = [
      {},
      { question: '' },
      { question: 5 },
      { question: 'q', format: 'pdf' },
      { question: 'q', past_messages: 'nope' },
    ];
    for (let i = 0; i < 60; i++) {
      const res = await ask(app, key, malformed[i % malformed.length]);
      expect({ i, status: res.status }).toEqual({ i, status: 400 });
    }
    for (let i = 0; i < 5; i++) {
      expect((await app.client.post(SUPPORT, { sender_email: 'x@example.com' }, { token: key })).status).toBe(
        400,
      );
      // No SMTP in this app and no support address: the e-mail is refused before it is queued.
      expect((await app.client.post(SUPPORT, { message: 'hello' }, { token: key })).status).toBe(503);
    }
    for (let i = 1; i <= 50; i++) {
      const res = await ask(app, key, { question: `question ${i}` });
      expect({ i, status: res.status }).toEqual({ i, status: 200 });
    }
    expect((await ask(app, key)).status).toBe(429);
    // Over the limit, a malformed request is still told what is wrong with it.
    expect((await ask(app, key, {})).status).toBe(400);
  });
});
