import type { S3Client } from '@aws-sdk/client-s3';
import { DocsetCatalog } from '@docqa/catalog';
import { NO_ANSWER_TEXT } from '@docqa/answers';
import type { TestApp } from '../support/app';
import { minimalPdf } from '../support/pdf';
import {
  createBucket,
  indexAndWait,
  putObject,
  s3,
  s3Credentials,
  startIndexingApp,
} from '../indexing/support';
import { ask, ASK, chatbotAccount, ChatbotAccount, clockOf, createKey, postSse, SETTINGS } from './support';

const REFUNDS = minimalPdf([
  'Returns policy. Items can be returned in their original packaging.',
  'Refunds are paid within 14 days of receiving the returned item.',
  'Exchanges are free of charge for members.',
]);
// Document text that tries to smuggle script into an HTML answer.
const MALICIOUS = [
  'The warranty period is two years <script>alert("xss")</script> <img src=x onerror=alert(1)>',
  '<a href="javascript:alert(2)" onclick="alert(3)">details</a> [more](javascript:alert(4))',
  '<iframe src="https://evil.example"></iframe><svg onload=alert(5)></svg> for every product.',
].join(' ');
const INTERNAL = 'The office wifi password is hunter2 for the staff network.';

describe('Chatbot: ask_question over indexed documents', () => {
  let app: TestApp;
  let client: S3Client;
  let acct: ChatbotAccount;
  let key: string;
  const SITE = 'https://shop.example.com';

  beforeAll(async () => {
    app = await startIndexingApp();
    client = s3();
    const bucket = await createBucket(client, 'chatbot');
    await putObject(client, bucket, 'public/refunds.pdf', REFUNDS);
    await putObject(client, bucket, 'public/warranty.txt', MALICIOUS);
    await putObject(client, bucket, 'internal/wifi.txt', INTERNAL);
    acct = await chatbotAccount(app, { plan: 'business', supportEmail: 'help@shop.example.com' });
    for (const [docSetName, prefix] of [
      ['public', 'public/'],
      ['internal', 'internal/'],
    ]) {
      await indexAndWait(app, acct.token, { docSetName, credentials: s3Credentials(bucket, prefix) });
    }
    ({ key } = await createKey(app, acct.token, { allowed_origin: SITE }));
  }, 300_000);
  afterAll(async () => {
    client?.destroy();
    await app?.close();
  });

  const headers = { origin: SITE };

  it('answers with citations whose source is a signed link to the cited PDF page', async () => {
    const res = await ask(app, key, { question: 'When are refunds paid?' }, headers);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['answer', 'citations', 'support_email']);
    expect(res.body.answer).toContain('Refunds are paid within 14 days');
    expect(res.body.answer).toContain('[1]');
    expect(res.body.support_email).toBe('help@shop.example.com');
    expect(res.body.citations[0]).toEqual({
      index: 1,
      fileName: 'refunds.pdf',
      pageNumber: '2',
      source: expect.stringMatching(
        new RegExp(`^${app.client.baseUrl}/api/v1/chatbot/files/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+#page=2$`),
      ),
    });
    for (const c of res.body.citations)
      expect(Object.keys(c).sort()).toEqual(['fileName', 'index', 'pageNumber', 'source']);
  });

  it('reads the docset list once per ask', async () => {
    const catalog = app.api.app.get(DocsetCatalog, { strict: false });
    const all = jest.spyOn(catalog, 'existingDocsetNamesOfAccount');
    const named = jest.spyOn(catalog, 'existingDocsetNames');
    try {
      const res = await ask(app, key, { question: 'When are refunds paid?' }, headers);
      expect(res.status).toBe(200);
      expect(res.body.answer).toContain('Refunds are paid within 14 days');
      expect(all).toHaveBeenCalledTimes(1);
      expect(named).not.toHaveBeenCalled();
    } finally {
      all.mockRestore();
      named.mockRestore();
    }
  });

  it("builds the signed links from the service's public base URL, never from the request's Host header", async () => {
    for (const host of [
      'evil.example.com',
      'evil.example.com:443',
      `localhost:${new URL(app.client.baseUrl).port}.evil.example`,
    ]) {
      const res = await ask(app, key, { question: 'When are refunds paid?' }, { ...headers, host });
      expect(res.status).toBe(200);
      const source = res.body.citations[0].source as string;
      expect(new URL(source).origin).toBe(app.client.baseUrl);
      expect(source).not.toContain('evil');
    }
    const streamed = await postSse(
      app,
      ASK,
      { question: 'When are refunds paid?', stream: true },
      { token: key, headers: { ...headers, host: 'evil.example.com' } },
    );
    const done = streamed.events.find((e) => e.event === 'done');
    expect(new URL(done!.data.citations[0].source).origin).toBe(app.client.baseUrl);
  });

  it('serves the cited file through the link with no other credential, until the link expires', async () => {
    const res = await ask(app, key, { question: 'When are refunds paid?' }, headers);
    const source = new URL(res.body.citations[0].source);
    const file = await app.client.get(source.pathname);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(file.headers['content-disposition']).toBe(
      `inline; filename="refunds.pdf"; filename*=UTF-8''refunds.pdf`,
    );
    // The PDF is plain ASCII, so the text body is its bytes.
    expect(file.text).toBe(REFUNDS.toString('latin1'));

    // Tampered and foreign tokens are 404, as is a link past its lifetime (24 h by default).
    const token = source.pathname.split('/').pop() as string;
    const [payload, sig] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), a: acct.accountId + 1 }),
    ).toString('base64url');
    expect((await app.client.get(`/api/v1/chatbot/files/${forged}.${sig}`)).status).toBe(404);
    expect((await app.client.get('/api/v1/chatbot/files/nonsense')).status).toBe(404);
    const clock = clockOf(app);
    clock.advance(24 * 3600 * 1000 + 1000);
    try {
      const expired = await app.client.get(source.pathname);
      expect(expired.status).toBe(404);
      expect(expired.body).toEqual({ error: 'This file link is invalid or has expired' });
    } finally {
      clock.reset();
    }
  });

  it('links other file types without a page fragment and never lets them run script', async () => {
    const res = await ask(app, key, { question: 'What is the warranty period?' }, headers);
    expect(res.status).toBe(200);
    const c = res.body.citations.find((x: { fileName: string }) => x.fileName === 'warranty.txt');
    expect(c.source).not.toContain('#');
    const file = await app.client.get(new URL(c.source).pathname);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(file.headers['content-security-policy']).toContain('sandbox');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
  });

  it('format html: rendered Markdown in which malicious document text stays inert', async () => {
    const text = await ask(app, key, { question: 'What is the warranty period?' }, headers);
    // The document's markup did reach the answer (as Markdown text), so the html check means something.
    expect(text.body.answer).toContain('<script>');
    expect(text.body.answer).toContain('onerror');

    const res = await ask(app, key, { question: 'What is the warranty period?', format: 'html' }, headers);
    expect(res.status).toBe(200);
    const html: string = res.body.answer;
    expect(html).toContain('The warranty period is two years');
    expect(html).toMatch(/^<p>/);
    expect(html).not.toMatch(/<script|<img|<iframe|<svg|<style/i);
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/(href|src)\s*=\s*["']?\s*(javascript|data|vbscript):/i);
    // The citation marker links to the cited file.
    expect(html).toContain(
      `<a href="${res.body.citations[0].source}" target="_blank" rel="noopener noreferrer nofollow">[1]</a>`,
    );
  });

  it('stream: true sends SSE: text deltas, citations, then done with the formatted answer', async () => {
    const r = await postSse(
      app,
      ASK,
      { question: 'When are refunds paid?', stream: true },
      { token: key, headers },
    );
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(r.headers['access-control-allow-origin']).toBe(SITE);
    const types = r.events.map((e) => e.event);
    expect(types.filter((t) => t === 'delta').length).toBeGreaterThan(1);
    expect(types.slice(-2)).toEqual(['citations', 'done']);
    expect(types.indexOf('citations')).toBe(types.lastIndexOf('delta') + 1);
    const done = r.events[r.events.length - 1].data;
    const deltas = r.events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text)
      .join('');
    expect(done).toMatchObject({ type: 'done', answer: deltas, support_email: 'help@shop.example.com' });
    expect(done.citations).toEqual(r.events[types.indexOf('citations')].data.citations);
    expect(done.citations[0]).toMatchObject({ index: 1, fileName: 'refunds.pdf', pageNumber: '2' });

    const html = await postSse(
      app,
      ASK,
      { question: 'What is the warranty period?', stream: true, format: 'html' },
      { token: key, headers },
    );
    const last = html.events[html.events.length - 1].data;
    expect(last.type).toBe('done');
    expect(last.answer).toMatch(/^<p>The warranty period is two years/);
    expect(last.answer).not.toMatch(/<script|onerror/i);

    // Checks still answer with a JSON error before any event.
    const denied = await postSse(
      app,
      ASK,
      { question: 'x', stream: true },
      { token: key, headers: { origin: 'https://evil.example' } },
    );
    expect(denied.status).toBe(403);
    expect(denied.events).toEqual([]);
    expect(JSON.parse(denied.text)).toEqual({
      error: 'Origin https://evil.example is not allowed for this chatbot key',
    });
  });

  it("answers from the account's chosen docsets only (default: all of them)", async () => {
    const q = { question: 'What is the office wifi password?' };
    const all = await ask(app, key, q, headers);
    expect(all.body.citations.map((c: { fileName: string }) => c.fileName)).toContain('wifi.txt');

    const set = await app.client.patch(SETTINGS, { docset_names: ['public'] }, { token: acct.token });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ docset_names: ['public'], available_docsets: ['internal', 'public'] });
    try {
      const limited = await ask(app, key, q, headers);
      expect(limited.status).toBe(200);
      expect(limited.text).not.toContain('hunter2');
      expect(limited.body.citations.map((c: { fileName: string }) => c.fileName)).not.toContain('wifi.txt');
    } finally {
      await app.client.patch(SETTINGS, { docset_names: null }, { token: acct.token });
    }
  });

  it('answers nothing from another account', async () => {
    const other = await chatbotAccount(app, { plan: 'pro' });
    const { key: otherKey } = await createKey(app, other.token);
    const res = await ask(app, otherKey, { question: 'When are refunds paid?' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ answer: NO_ANSWER_TEXT, citations: [], support_email: '' });
  });
});
