import { Client } from 'pg';
import { register, uniqueEmail } from '../accounts/support';
import { SETTINGS } from '../chatbot/support';
import { startTestApp, TestApp } from '../support/app';

const P = '/api/v1/document_proxy';
const json = { 'content-type': 'application/json' };
const S3_CREDS = {
  accessKeyId: 'AKIAEXAMPLE',
  secretAccessKey: 'not-a-real-secret',
  bucket: 'no-such-bucket',
};

/**
 * Hostile and sloppy input (issue 16): every rejection is a 400 in the surface's body that names
 * the rule that failed, and changes nothing.
 */
describe('input validation', () => {
  let app: TestApp;
  let token: string;
  let db: Client;

  beforeAll(async () => {
    app = await startTestApp();
    ({ token } = await register(app));
    db = new Client({ connectionString: app.cfg.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
  });

  const count = async (sql: string) => Number((await db.query(sql)).rows[0].n);

  describe('__proto__ and constructor are unknown fields', () => {
    const ask = { question: 'what?', docSetNames: ['manuals'] };

    it.each([
      [
        'top level __proto__',
        `{"question":"what?","docSetNames":["manuals"],"__proto__":{"admin":true}}`,
        '__proto__',
      ],
      [
        'top level constructor',
        `{"question":"what?","docSetNames":["manuals"],"constructor":{"x":1}}`,
        'constructor',
      ],
      [
        '__proto__ in config',
        `{"question":"what?","docSetNames":["manuals"],"config":{"__proto__":{"retrievalLimit":9}}}`,
        'config.__proto__',
      ],
      [
        'constructor in config',
        `{"question":"what?","docSetNames":["manuals"],"config":{"constructor":1}}`,
        'config.constructor',
      ],
    ])('/ask: %s is 400 VALIDATION_ERROR naming the field', async (_name, rawBody, field) => {
      const res = await app.client.request('POST', `${P}/ask`, { rawBody, headers: json, token });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field });
      expect(res.body.message).toMatch(/should not exist/);
    });

    it('an ordinary unknown key is still rejected the same way (control)', async () => {
      const res = await app.client.post(`${P}/ask`, { ...ask, admin: true }, { token });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field: 'admin' });
    });

    it('POST /index with __proto__ is 400 and starts no run', async () => {
      const res = await app.client.request('POST', `${P}/index`, {
        rawBody: '{"docSetName":"protos","__proto__":{"async":false}}',
        headers: json,
        token,
      });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('__proto__');
      expect(await count(`SELECT count(*) AS n FROM index_runs`)).toBe(0);
    });

    it('the Account API answers in its own body', async () => {
      const email = uniqueEmail('proto');
      const res = await app.client.request('POST', '/api/v1/users', {
        rawBody: `{"user":{"email":"${email}","password":"a-long-passphrase-9","password_confirmation":"a-long-passphrase-9","constructor":{"prototype":{"admin":true}}}}`,
        headers: json,
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
      expect(res.body.errors['user.constructor']).toEqual([expect.stringMatching(/should not exist/)]);
      expect(await count(`SELECT count(*) AS n FROM users WHERE email = '${email}'`)).toBe(0);
    });
  });

  describe('text encoding', () => {
    it('invalid UTF-8 in a JSON body is 400 on both surfaces, never decoded to U+FFFD', async () => {
      const email = uniqueEmail('utf8');
      const body = Buffer.concat([
        Buffer.from(
          `{"user":{"email":"${email}","password":"a-long-passphrase-9","password_confirmation":"a-long-passphrase-9","name":"Bad `,
        ),
        Buffer.from([0xc3, 0x28, 0xff]),
        Buffer.from('"}}'),
      ]);
      const acct = await app.client.request('POST', '/api/v1/users', { rawBody: body, headers: json });
      expect(acct.status).toBe(400);
      expect(acct.body).toEqual({ error: expect.stringMatching(/UTF-8/) });
      expect(await count(`SELECT count(*) AS n FROM users WHERE email = '${email}'`)).toBe(0);

      const doc = await app.client.request('POST', `${P}/index`, {
        rawBody: Buffer.concat([Buffer.from('{"docSetName":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
        headers: { 'content-type': 'application/json; charset=utf-8' },
        token,
      });
      expect(doc.status).toBe(400);
      expect(doc.body).toMatchObject({
        errorCode: 'MALFORMED_JSON',
        message: expect.stringMatching(/UTF-8/),
      });
      expect(await count(`SELECT count(*) AS n FROM index_runs`)).toBe(0);
    });

    it('valid multi-byte UTF-8 still passes (control)', async () => {
      const res = await app.client.request('GET', `${P}/index/progress/${encodeURIComponent('café 📚')}`, {
        token,
      });
      expect(res.status).toBe(200);
    });

    it('a lone surrogate in docSetName is 400 and leaves no run behind', async () => {
      const res = await app.client.request('POST', `${P}/index`, {
        rawBody: `{"docSetName":"\\ud800x","credentials":${JSON.stringify(S3_CREDS)}}`,
        headers: json,
        token,
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field: 'docSetName' });
      expect(res.body.message).toMatch(/surrogate/);
      expect(await count(`SELECT count(*) AS n FROM index_runs`)).toBe(0);
      const summary = await app.client.get(`${P}/documents/indexing-summary`, { token });
      expect(summary.body.docSets).toEqual([]);
    });

    it('a lone surrogate anywhere else in a body is 400 too', async () => {
      const res = await app.client.request('POST', `${P}/ask`, {
        rawBody: '{"question":"why \\udc00?","docSetNames":["manuals"]}',
        headers: json,
        token,
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field: 'question' });
    });
  });

  describe('messages name the rule that failed', () => {
    const cases: Array<[string, string, unknown, string, RegExp]> = [
      ['missing question', `${P}/ask`, { docSetNames: ['m'] }, 'question', /question is required/],
      ['question of the wrong type', `${P}/ask`, { question: 5, docSetNames: ['m'] }, 'question', /question must be a string/],
      ['too long question', `${P}/ask`, { question: 'q'.repeat(4001), docSetNames: ['m'] }, 'question', /at most 4000 characters/],
      ['missing docSetNames', `${P}/ask`, { question: 'q' }, 'docSetNames', /docSetNames is required/],
      ['docSetNames of the wrong type', `${P}/ask`, { question: 'q', docSetNames: 'm' }, 'docSetNames', /must be an array/],
      ['retrievalLimit "lots"', `${P}/ask`, { question: 'q', docSetNames: ['m'], config: { retrievalLimit: 'lots' } }, 'config.retrievalLimit', /must be an integer/],
      ['retrievalLimit too large', `${P}/ask`, { question: 'q', docSetNames: ['m'], config: { retrievalLimit: 51 } }, 'config.retrievalLimit', /at most 50/],
      ['missing pastMessages', `${P}/summary`, {}, 'pastMessages', /pastMessages is required/],
      ['pastMessages of the wrong type', `${P}/summary`, { pastMessages: 'hi' }, 'pastMessages', /must be an array/],
      ['missing docSetName', `${P}/index`, {}, 'docSetName', /docSetName is required/],
      ['docSetName of the wrong type', `${P}/index`, { docSetName: 7 }, 'docSetName', /docSetName must be a string/],
    ]; // prettier-ignore

    it.each(cases)('%s', async (_name, path, body, field, message) => {
      const res = await app.client.post(path, body, { token });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field });
      expect(res.body.message).toMatch(message);
    });

    it('missing q of keyword routing', async () => {
      const res = await app.client.get(`${P}/keyword-routing/evaluate`, { token });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ field: 'q', message: expect.stringMatching(/q is required/) });
    });

    it('missing docSetName of the document listing', async () => {
      const res = await app.client.get(`${P}/documents`, { token });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ field: 'docSetName', message: expect.stringMatching(/is required/) });
    });
  });

  describe('one definition of a docset name (1-200 Unicode code points)', () => {
    const emoji200 = '📚'.repeat(200); // 400 UTF-16 code units
    const emoji201 = '📚'.repeat(201);

    it('200 emoji are accepted by every validator, 201 refused by every one', async () => {
      const accepted: Array<[string, () => Promise<{ status: number; body: any }>, number]> = [
        ['progress', () => app.client.get(`${P}/index/progress/${encodeURIComponent(emoji200)}`, { token }), 200],
        ['cancel', () => app.client.post(`${P}/index/cancel/${encodeURIComponent(emoji200)}`, undefined, { token }), 409],
        ['metadata', () => app.client.get(`${P}/documents/metadata/${encodeURIComponent(emoji200)}`, { token }), 403],
        ['documents', () => app.client.get(`${P}/documents?docSetName=${encodeURIComponent(emoji200)}`, { token }), 403],
        ['ask', () => app.client.post(`${P}/ask`, { question: 'q', docSetNames: [emoji200] }, { token }), 403],
        ['delete', () => app.client.delete(`${P}/index/docsets`, { docSetNames: [emoji200] }, { token }), 403],
        ['token scope', () => app.client.post('/api/v1/api_tokens', { name: 'scoped', docset_names: [emoji200] }, { token }), 200],
              ]; // prettier-ignore
      for (const [name, call, status] of accepted) {
        const res = await call();
        expect([name, res.status]).toEqual([name, status]);
      }
      // The chatbot settings accept only docsets that exist: the name passes validation and is then unknown.
      const settings = await app.client.patch(SETTINGS, { docset_names: [emoji200] }, { token });
      expect(settings.status).toBe(422);
      expect(settings.body.errors.docset_names).toEqual([
        expect.stringMatching(/must name docsets of this account/),
      ]);

      const refused: Array<[string, () => Promise<{ status: number; body: any }>, number]> = [
        ['index', () => app.client.post(`${P}/index`, { docSetName: emoji201 }, { token }), 400],
        ['check-source', () => app.client.post(`${P}/index/check-source`, { docSetName: emoji201 }, { token }), 400],
        ['progress', () => app.client.get(`${P}/index/progress/${encodeURIComponent(emoji201)}`, { token }), 400],
        ['cancel', () => app.client.post(`${P}/index/cancel/${encodeURIComponent(emoji201)}`, undefined, { token }), 400],
        ['metadata', () => app.client.get(`${P}/documents/metadata/${encodeURIComponent(emoji201)}`, { token }), 400],
        ['documents', () => app.client.get(`${P}/documents?docSetName=${encodeURIComponent(emoji201)}`, { token }), 400],
        ['ask', () => app.client.post(`${P}/ask`, { question: 'q', docSetNames: [emoji201] }, { token }), 400],
        ['delete', () => app.client.delete(`${P}/index/docsets`, { docSetNames: [emoji201] }, { token }), 400],
        ['token scope', () => app.client.post('/api/v1/api_tokens', { name: 'scoped', docset_names: [emoji201] }, { token }), 422],
        ['chatbot settings', () => app.client.patch(SETTINGS, { docset_names: [emoji201] }, { token }), 422],
      ]; // prettier-ignore
      for (const [name, call, status] of refused) {
        const res = await call();
        expect([name, res.status]).toEqual([name, status]);
        expect(JSON.stringify(res.body)).toMatch(/200 characters/);
      }
    });

    it('names with control characters or surrounding whitespace are refused everywhere', async () => {
      for (const bad of [' lead', 'trail ', 'tab\there']) {
        const ask = await app.client.post(`${P}/ask`, { question: 'q', docSetNames: [bad] }, { token });
        expect([bad, ask.status]).toEqual([bad, 400]);
        const progress = await app.client.get(`${P}/index/progress/${encodeURIComponent(bad)}`, { token });
        expect([bad, progress.status]).toEqual([bad, 400]);
        const scope = await app.client.post(
          '/api/v1/api_tokens',
          { name: 's', docset_names: [bad] },
          { token },
        );
        expect([bad, scope.status]).toEqual([bad, 422]);
      }
    });
  });
});
