import { register } from '../accounts/support';
import { startTestApp, TestApp } from '../support/app';

/** GET /api/v1/document_proxy/keyword-routing/evaluate, on an app using the embedded search engine. */
describe('keyword routing endpoint (embedded search engine)', () => {
  let app: TestApp;
  let token: string;
  const path = '/api/v1/document_proxy/keyword-routing/evaluate';

  beforeAll(async () => {
    app = await startTestApp({ embeddedSearch: true });
    token = (await register(app)).token;
  });
  afterAll(() => app?.close());

  it('evaluates a keyword query (1-5 words, no punctuation) as skipping the rewriter', async () => {
    const res = await app.client.get(`${path}?q=${encodeURIComponent('latex  set all margins 2cm')}`, {
      token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      query: 'latex set all margins 2cm',
      skipsRewriter: true,
      maxWords: 5,
      rule: expect.stringContaining('1 to 5 words'),
    });
  });

  it('does not skip for 6 words or punctuation', async () => {
    for (const q of ['latex set all page margins 2cm', 'what is geometry?', 'margins, please']) {
      const res = await app.client.get(`${path}?q=${encodeURIComponent(q)}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.skipsRewriter).toBe(false);
    }
    const uni = await app.client.get(`${path}?q=${encodeURIComponent('Größe der Ränder')}`, { token });
    expect(uni.body).toMatchObject({ query: 'Größe der Ränder', skipsRewriter: true });
  });

  it('answers 400 VALIDATION_ERROR with field q for a missing or empty q', async () => {
    for (const suffix of ['', '?q=', '?q=%20%20']) {
      const res = await app.client.get(`${path}${suffix}`, { token });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field: 'q' });
    }
  });

  it('requires an API token', async () => {
    const res = await app.client.get(`${path}?q=margins`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ errorCode: 'UNAUTHENTICATED' });
    const bad = await app.client.get(`${path}?q=margins`, { token: 'not-a-token' });
    expect(bad.status).toBe(401);
  });

  it('reports the embedded search engine up in /health (engine named only in the operator view)', async () => {
    const res = await app.client.get('/api/v1/document_proxy/health');
    expect(res.status).toBe(200);
    expect(res.body.checks.search).toEqual({ status: 'up' });
    const operator = await fetch(`http://127.0.0.1:${app.api.metricsPort}/health`);
    expect((await operator.json()).checks.search).toMatchObject({ status: 'up', engine: 'embedded' });
  });
});
