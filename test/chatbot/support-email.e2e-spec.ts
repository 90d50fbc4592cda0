import type { Client } from 'pg';
import { startTestApp, TestApp } from '../support/app';
import { dbOf } from '../indexing/support';
import { ask, chatbotAccount, clockOf, createKey, eventually, sleep, SUPPORT } from './support';
import { startTestSmtp, TestSmtp } from './smtp';

const SUPPORT_ADDRESS = 'help@shop.example.com';

function mailEnv(smtp: TestSmtp) {
  return {
    SMTP_URL: smtp.url,
    MAIL_FROM: 'DocQA Support <no-reply@docqa.test>',
  };
}

/** Short outbox polls and retries (in-process: the product's are constants) so a test takes seconds. */
const FAST_MAIL = { mail: { outboxPollMs: 200, retryBaseMs: 200, retryMaxMs: 1000 } };

describe('Chatbot: support e-mail through the outbox and SMTP', () => {
  let smtp: TestSmtp;
  let app: TestApp;
  let db: Client;
  let key: string;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    app = await startTestApp({ env: mailEnv(smtp), config: FAST_MAIL });
    db = await dbOf(app);
    const a = await chatbotAccount(app, { plan: 'pro', supportEmail: SUPPORT_ADDRESS });
    ({ key } = await createKey(app, a.token, { allowed_origin: 'https://shop.example.com' }));
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
    await smtp?.stop();
  });

  const send = (body: unknown) =>
    app.client.post(SUPPORT, body, { token: key, headers: { origin: 'https://shop.example.com' } });
  const mailsWith = (text: string) => smtp.received.filter((m) => m.text.includes(text));
  const outboxRow = async (text: string) =>
    (await db.query('SELECT * FROM mail_outbox WHERE body LIKE $1', [`%${text}%`])).rows[0];

  it("delivers the message to the account's support address, the sender as Reply-To", async () => {
    const res = await send({ message: 'Where is my order #4711?', sender_email: 'visitor@example.org' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Your message has been sent to support.' });
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example.com');

    const mail = await eventually(async () => mailsWith('Where is my order #4711?')[0]);
    expect(mail.to).toEqual([SUPPORT_ADDRESS]);
    expect(mail.from).toBe('no-reply@docqa.test');
    expect(mail.headers['reply-to']).toBe('visitor@example.org');
    expect(mail.headers.from).toContain('no-reply@docqa.test');
    expect(mail.headers.subject).toBe('Support request from your website chatbot');
    expect(mail.text).toContain('From: visitor@example.org');
    expect(mail.text).toContain('Website: https://shop.example.com');

    const row = await eventually(async () => {
      const r = await outboxRow('Where is my order #4711?');
      return r?.status === 'SENT' ? r : undefined;
    });
    expect(row).toMatchObject({ to_address: SUPPORT_ADDRESS, reply_to: 'visitor@example.org', attempts: 1 });
    expect(row.sent_at).not.toBeNull();
  });

  it('accepts exactly 2000 characters and refuses 2001 with 400; validates sender_email', async () => {
    const ok = await send({ message: `${'a'.repeat(1990)}-max-2000` });
    expect(ok.status).toBe(200);
    const long = await send({ message: 'a'.repeat(2001) });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({
      error: 'message is too long (maximum is 2000 characters)',
      errors: { message: ['is too long (maximum is 2000 characters)'] },
    });
    expect((await send({})).status).toBe(400);
    expect((await send({ message: '   ' })).status).toBe(400);
    const badSender = await send({ message: 'hi', sender_email: 'x@y\r\nBcc: victim@example.org' });
    expect(badSender.status).toBe(400);
    expect(Object.keys(badSender.body.errors)).toEqual(['sender_email']);
    await eventually(async () => mailsWith('-max-2000')[0]);
    expect(smtp.received.some((m) => m.raw.includes('victim@example.org'))).toBe(false);
  });

  it('keeps the message while SMTP is down and delivers it, once, when SMTP is back', async () => {
    await smtp.stop();
    try {
      const res = await send({
        message: 'Sent while the mail server was down',
        sender_email: 'late@example.org',
      });
      expect(res.status).toBe(200);
      // Attempts fail and are retried with backoff; the message stays queued.
      const pending = await eventually(async () => {
        const r = await outboxRow('Sent while the mail server was down');
        return r && r.attempts >= 2 ? r : undefined;
      });
      expect(pending.status).toBe('PENDING');
      expect(pending.last_error).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
      expect(mailsWith('Sent while the mail server was down')).toHaveLength(0);
    } finally {
      await smtp.start();
    }
    const mail = await eventually(async () => mailsWith('Sent while the mail server was down')[0], 30_000);
    expect(mail.headers['reply-to']).toBe('late@example.org');
    await eventually(async () =>
      (await outboxRow('Sent while the mail server was down'))?.status === 'SENT' ? true : undefined,
    );
    await sleep(1500);
    expect(mailsWith('Sent while the mail server was down')).toHaveLength(1);
  });

  it('two api replicas share the outbox without sending a message twice', async () => {
    const replica = await startTestApp({
      env: { ...mailEnv(smtp), DATABASE_URL: app.cfg.database.url },
      config: FAST_MAIL,
    });
    try {
      const replicaSend = (body: unknown) =>
        replica.client.post(SUPPORT, body, { token: key, headers: { origin: 'https://shop.example.com' } });
      const tags = Array.from({ length: 24 }, (_, i) => `replica-message-${String(i).padStart(2, '0')}`);
      const res = await Promise.all(tags.map((t, i) => (i % 2 ? replicaSend : send)({ message: t })));
      expect(res.map((r) => r.status)).toEqual(tags.map(() => 200));
      await eventually(async () => (tags.every((t) => mailsWith(t).length > 0) ? true : undefined), 30_000);
      await sleep(1500);
      for (const t of tags) expect({ t, n: mailsWith(t).length }).toEqual({ t, n: 1 });
    } finally {
      await replica.close();
    }
  });

  it('shares the hourly counter with ask_question: a queued e-mail counts, and a spent key gets 429', async () => {
    // A fixed instant, so the hour cannot roll over between the requests.
    clockOf(app).set(Date.UTC(2031, 2, 4, 10, 10, 0));
    try {
      const a = await chatbotAccount(app, { plan: 'pro', supportEmail: SUPPORT_ADDRESS });
      const k = await createKey(app, a.token);
      expect((await app.client.post(SUPPORT, { message: 'counted-1' }, { token: k.key })).status).toBe(200);
      for (let i = 1; i <= 49; i++) {
        const res = await ask(app, k.key, { question: `question ${i}` });
        expect({ i, status: res.status }).toEqual({ i, status: 200 });
      }
      expect((await ask(app, k.key)).status).toBe(429);
      const over = await app.client.post(SUPPORT, { message: 'one too many' }, { token: k.key });
      expect(over.status).toBe(429);
      expect(over.body).toEqual({
        error: 'Rate limit of 50 requests per hour for this chatbot key exceeded',
        limit: 50,
        reset_at: '2031-03-04T11:00:00.000Z',
      });
      expect(await outboxRow('one too many')).toBeUndefined();
    } finally {
      clockOf(app).reset();
    }
  });

  it('503 when the account has no support address', async () => {
    const a = await chatbotAccount(app, { plan: 'business' });
    const k = await createKey(app, a.token);
    const res = await app.client.post(SUPPORT, { message: 'hi' }, { token: k.key });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      error: 'Support e-mail is not available: this account has no support address',
    });
  });
});

describe('Chatbot: support e-mail without SMTP', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ env: { SMTP_URL: undefined } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('503 when no SMTP is configured', async () => {
    const a = await chatbotAccount(app, { plan: 'pro', supportEmail: SUPPORT_ADDRESS });
    const { key } = await createKey(app, a.token);
    const res = await app.client.post(SUPPORT, { message: 'hello' }, { token: key });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'Support e-mail is not available: SMTP is not configured' });
    const db = await dbOf(app);
    try {
      expect((await db.query('SELECT count(*)::int AS n FROM mail_outbox')).rows[0].n).toBe(0);
    } finally {
      await db.end();
    }
  });
});
