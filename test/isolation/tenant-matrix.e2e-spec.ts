import { newCaller, Caller } from '../ask/support';
import { createKey, setPlan } from '../chatbot/support';
import { startTestApp, TestApp } from '../support/app';
import type { HttpResponse } from '../support/http';
import { seedDocuments, SeededDocument } from '../support/seed';

/**
 * Tenant isolation matrix: two accounts with the same docset names and the same file names, each
 * document carrying its tenant's unique marker. Every endpoint of every surface is called as tenant
 * B with tenant A's ids, docset names, key ids and `cb_` key: the answer is 401/403/404 (or B's own
 * data), and no response body ever contains anything unique to A.
 */

const DP = '/api/v1/document_proxy';
const SHARED = 'handbook';

interface Tenant extends Caller {
  marker: string;
  docs: SeededDocument[];
  errorDoc: SeededDocument;
  key: { id: number; key: string };
  ownDocset: string;
  tokenIds: number[];
}

function pagesFor(marker: string): string[] {
  return [
    `Holiday policy. Every employee gets thirty days of paid leave. Reference code ${marker}.`,
    `Expenses are reimbursed within ten days when the receipt shows ${marker}.`,
  ];
}

describe('Tenant isolation matrix (every surface, foreign ids, names and keys)', () => {
  let app: TestApp;
  let a: Tenant;
  let b: Tenant;
  const seen: Array<{ what: string; res: HttpResponse }> = [];

  async function tenant(label: string): Promise<Tenant> {
    const c = await newCaller(app);
    const marker = `ZQX${label}${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
    const ownDocset = `only-${label.toLowerCase()}-${Math.random().toString(36).slice(2, 8)}`;
    const docs = await seedDocuments(app, c.accountId, [
      { docSetName: SHARED, fileName: 'policy.txt', pages: pagesFor(marker) },
      {
        docSetName: SHARED,
        fileName: 'notes.txt',
        pages: [`Meeting notes ${marker}: the office opens at nine.`],
      },
      { docSetName: ownDocset, fileName: 'secret.txt', pages: [`Private plans ${marker} for next year.`] },
    ]);
    const [errorDoc] = await seedDocuments(app, c.accountId, [
      { docSetName: SHARED, fileName: 'broken.pdf', pages: ['x'], status: 'ERROR' },
    ]);
    await setPlan(app, c.accountId, 'business');
    const s = await app.client.patch(
      '/api/v1/chatbot/settings',
      { support_email: `help-${marker.toLowerCase()}@example.com` },
      { token: c.token },
    );
    expect(s.status).toBe(200);
    const key = await createKey(app, c.token, { name: `key ${marker}` });
    const t = await app.client.post('/api/v1/api_tokens', { name: `tok ${marker}` }, { token: c.token });
    expect(t.status).toBe(200);
    return {
      ...c,
      marker,
      docs,
      errorDoc,
      key,
      ownDocset,
      tokenIds: [c.tokenId, t.body.id as number],
    };
  }

  /**
   * What only A has: must never reach B. (A's docset name is not in the list: B sends it in some
   * requests and an error may echo it; listings are checked for it explicitly.)
   */
  function aSecrets(): string[] {
    return [a.marker, a.marker.toLowerCase(), a.key.key, a.token, ...a.docs.map((d) => d.id), a.errorDoc.id];
  }

  async function asB(what: string, method: string, path: string, body?: unknown, token = b.token) {
    const res = await app.client.request(method, path, { token, body });
    seen.push({ what, res });
    return res;
  }

  beforeAll(async () => {
    app = await startTestApp();
    a = await tenant('A');
    b = await tenant('B');
  }, 180_000);
  afterAll(async () => {
    await app?.close();
  });

  afterEach(() => {
    for (const { what, res } of seen.splice(0)) {
      for (const s of aSecrets()) {
        if (res.text.includes(s))
          throw new Error(
            `${what}: response ${res.status} contains tenant A's "${s.slice(0, 12)}": ${res.text.slice(0, 300)}`,
          );
      }
    }
  });

  it('sanity: A sees its own data through the same calls', async () => {
    const res = await app.client.get(`${DP}/documents/${a.docs[0].id}`, { token: a.token });
    expect(res.status).toBe(200);
    const list = await app.client.get(`${DP}/documents?docSetName=${SHARED}`, { token: a.token });
    expect(list.text).toContain(a.docs[0].id);
  });

  it('Document API: documents by foreign id are 404; listings show only B', async () => {
    for (const d of [...a.docs, a.errorDoc])
      expect((await asB('GET document', 'GET', `${DP}/documents/${d.id}`)).status).toBe(404);
    const list = await asB('list shared', 'GET', `${DP}/documents?docSetName=${SHARED}`);
    expect(list.status).toBe(200);
    expect(list.body.map((d: { id: string }) => d.id).sort()).toEqual(
      [...b.docs.filter((d) => d.docSetName === SHARED).map((d) => d.id), b.errorDoc.id].sort(),
    );
    const own = await asB('list foreign docset', 'GET', `${DP}/documents?docSetName=${a.ownDocset}`);
    expect([200, 403, 404]).toContain(own.status);
    if (own.status === 200) expect(own.body).toEqual([]);
    const recent = await asB('recent', 'GET', `${DP}/documents/recent?limit=100`);
    expect(recent.status).toBe(200);
    const docsets = await asB('docsets', 'GET', `${DP}/documents/docsets`);
    expect(docsets.status).toBe(200);
    expect(docsets.text).toContain(b.ownDocset);
    const summary = await asB('indexing summary', 'GET', `${DP}/documents/indexing-summary`);
    expect(summary.status).toBe(200);
    for (const r of [recent, docsets, summary, list]) expect(r.text).not.toContain(a.ownDocset);
    const meta = await asB('metadata foreign', 'GET', `${DP}/documents/metadata/${a.ownDocset}`);
    expect([403, 404]).toContain(meta.status);
    const metaShared = await asB('metadata shared', 'GET', `${DP}/documents/metadata/${SHARED}`);
    expect(metaShared.status).toBe(200);
  });

  it('Document API: ask and summary answer only from B', async () => {
    const forbidden = await asB('ask foreign', 'POST', `${DP}/ask`, {
      question: 'What are the private plans?',
      docSetNames: [a.ownDocset],
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.errorCode).toBe('FORBIDDEN');
    const mixed = await asB('ask mixed', 'POST', `${DP}/ask`, {
      question: 'What are the private plans?',
      docSetNames: [SHARED, a.ownDocset],
    });
    expect(mixed.status).toBe(403);
    for (const q of ['How many days of paid leave?', `Reference code ${a.marker}`, a.marker]) {
      const res = await asB('ask shared', 'POST', `${DP}/ask`, { question: q, docSetNames: [SHARED] });
      expect(res.status).toBe(200);
    }
    const own = await asB('ask shared (B marker)', 'POST', `${DP}/ask`, {
      question: 'Reference code for the holiday policy',
      docSetNames: [SHARED],
    });
    expect(own.text).toContain(b.marker);
    const sum = await asB('summary', 'POST', `${DP}/summary`, {
      pastMessages: [{ role: 'user', content: 'What is the holiday policy reference code?' }],
    });
    expect(sum.status).toBe(200);
    // The keyword router echoes the query and must not search anything.
    const kr = await asB('keyword routing', 'GET', `${DP}/keyword-routing/evaluate?q=holiday%20policy`);
    expect(kr.status).toBe(200);
  });

  it('Indexing API: foreign docsets and document ids are refused', async () => {
    const progress = await asB('progress foreign', 'GET', `${DP}/index/progress/${a.ownDocset}`);
    expect([200, 403, 404]).toContain(progress.status);
    if (progress.status === 200)
      expect(progress.body).toMatchObject({ completedCount: 0, errorCount: 0, isIndexing: false });
    const retry = await asB('retry foreign', 'POST', `${DP}/index/retry/${a.errorDoc.id}`);
    expect(retry.status).toBe(404);
    const cancel = await asB('cancel foreign', 'POST', `${DP}/index/cancel/${a.ownDocset}`);
    expect([403, 404, 409]).toContain(cancel.status);
    const del = await asB('delete foreign', 'DELETE', `${DP}/index/docsets`, { docSetNames: [a.ownDocset] });
    expect([403, 404]).toContain(del.status);
    // A's documents are all still there.
    for (const d of a.docs)
      expect((await app.client.get(`${DP}/documents/${d.id}`, { token: a.token })).status).toBe(200);
  });

  it("Account API: A's tokens, keys and profile cannot be read or changed by B", async () => {
    for (const id of a.tokenIds)
      expect([403, 404]).toContain(
        (await asB('revoke foreign token', 'DELETE', `/api/v1/api_tokens/${id}`)).status,
      );
    expect((await app.client.get('/api/v1/me', { token: a.token })).status).toBe(200);
    const tokens = await asB('token list', 'GET', '/api/v1/api_tokens');
    expect(tokens.status).toBe(200);
    const accounts = await asB('accounts', 'GET', '/api/v1/accounts');
    expect(accounts.status).toBe(200);
    expect(accounts.body.every((x: { id: number }) => x.id !== a.accountId)).toBe(true);
    expect((await asB('me', 'GET', '/api/v1/me')).status).toBe(200);
    // An avatar URL without A's signature is refused.
    const avatar = await asB('avatar unsigned', 'GET', `/api/v1/users/${a.accountId}/avatar.svg?s=x`);
    expect([400, 403, 404]).toContain(avatar.status);
  });

  it('Chatbot settings: foreign key ids are 404, listings show only B', async () => {
    const patch = await asB('patch foreign key', 'PATCH', `/api/v1/chatbot/keys/${a.key.id}`, {
      name: 'pwned',
    });
    expect(patch.status).toBe(404);
    const revoke = await asB('revoke foreign key', 'DELETE', `/api/v1/chatbot/keys/${a.key.id}`);
    expect(revoke.status).toBe(404);
    expect((await asB('keys', 'GET', '/api/v1/chatbot/keys')).status).toBe(200);
    expect((await asB('settings', 'GET', '/api/v1/chatbot/settings')).status).toBe(200);
    // A's key still works.
    const res = await app.client.post(
      '/api/v1/chatbot/ask_question',
      { question: 'Reference code of the holiday policy' },
      { token: a.key.key },
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain(a.marker);
  });

  it("Chatbot endpoints: B's key answers only from B; keys and tokens do not cross surfaces", async () => {
    for (const q of ['How many days of paid leave?', a.marker, `private plans ${a.marker}`]) {
      const res = await asB(
        'chatbot ask',
        'POST',
        '/api/v1/chatbot/ask_question',
        { question: q },
        b.key.key,
      );
      expect(res.status).toBe(200);
    }
    const html = await asB(
      'chatbot ask html',
      'POST',
      '/api/v1/chatbot/ask_question',
      { question: 'Reference code of the holiday policy', format: 'html' },
      b.key.key,
    );
    expect(html.text).toContain(b.marker);
    // A cb_ key is not an API token anywhere else, and an API token is not a cb_ key.
    for (const [m, p] of [
      ['GET', `${DP}/documents?docSetName=${SHARED}`],
      ['GET', `${DP}/documents/${a.docs[0].id}`],
      ['GET', '/api/v1/me'],
      ['GET', '/api/v1/chatbot/keys'],
    ])
      expect((await asB(`cb key on ${p}`, m, p, undefined, a.key.key)).status).toBe(401);
    const tokenAsKey = await asB('api token on chatbot', 'POST', '/api/v1/chatbot/ask_question', {
      question: 'paid leave?',
    });
    expect(tokenAsKey.status).toBe(401);
  });
});
