import type { TestApp } from '../support/app';
import { useAskFixture } from './ask-fixture';
import { ASK, Caller, restrictedToken, spySearches, SUMMARY } from './support';

/**
 * POST /ask's and /summary's request contract on the local provider: validation and authorisation
 * before any retrieval, the OpenAPI document, and conversation titles (ask-answers.e2e-spec.ts
 * covers the answers).
 */
describe('POST /ask (local provider, Elasticsearch)', () => {
  // the contract needs 'manuals' complete, not its answers: one small PDF
  const fixture = useAskFixture(['screenplay.pdf']);
  const { ask } = fixture;
  let app: TestApp;
  let alice: Caller;
  beforeAll(() => void ({ app, alice } = fixture));

  describe('validation and authorisation come before any retrieval', () => {
    const cases: Array<[string, unknown, string]> = [
      ['missing question', { docSetNames: ['manuals'] }, 'question'],
      ['blank question', { question: '   ', docSetNames: ['manuals'] }, 'question'],
      ['too long question', { question: 'x'.repeat(4001), docSetNames: ['manuals'] }, 'question'],
      ['missing docSetNames', { question: 'margins' }, 'docSetNames'],
      ['empty docSetNames', { question: 'margins', docSetNames: [] }, 'docSetNames'],
      ['non-string docset', { question: 'margins', docSetNames: [1] }, 'docSetNames'],
      [
        'too many docsets',
        { question: 'margins', docSetNames: Array.from({ length: 21 }, (_, i) => `d${i}`) },
        'docSetNames',
      ],
      [
        'bad role',
        { question: 'q', docSetNames: ['manuals'], pastMessages: [{ role: 'system', content: 'x' }] },
        'pastMessages.0.role',
      ],
      [
        'content not a string',
        { question: 'q', docSetNames: ['manuals'], pastMessages: [{ role: 'user', content: 5 }] },
        'pastMessages.0.content',
      ],
      [
        'too many messages',
        {
          question: 'q',
          docSetNames: ['manuals'],
          pastMessages: Array.from({ length: 51 }, () => ({ role: 'user', content: 'x' })),
        },
        'pastMessages',
      ],
      [
        'retrievalLimit 0',
        { question: 'q', docSetNames: ['manuals'], config: { retrievalLimit: 0 } },
        'config.retrievalLimit',
      ],
      [
        'retrievalLimit 51',
        { question: 'q', docSetNames: ['manuals'], config: { retrievalLimit: 51 } },
        'config.retrievalLimit',
      ],
      [
        'retrievalLimit 2.5',
        { question: 'q', docSetNames: ['manuals'], config: { retrievalLimit: 2.5 } },
        'config.retrievalLimit',
      ],
      [
        'similarity 1.5',
        { question: 'q', docSetNames: ['manuals'], config: { minimumSimilarityScore: 1.5 } },
        'config.minimumSimilarityScore',
      ],
      [
        'similarity -0.1',
        { question: 'q', docSetNames: ['manuals'], config: { minimumSimilarityScore: -0.1 } },
        'config.minimumSimilarityScore',
      ],
      [
        'unknown model',
        { question: 'q', docSetNames: ['manuals'], config: { model: 'gpt-9' } },
        'config.model',
      ],
      ['unknown config key', { question: 'q', docSetNames: ['manuals'], config: { topK: 3 } }, 'config.topK'],
      [
        'long promptContext',
        { question: 'q', docSetNames: ['manuals'], promptContext: 'p'.repeat(4001) },
        'promptContext',
      ],
      ['stream not boolean', { question: 'q', docSetNames: ['manuals'], stream: 'yes' }, 'stream'],
      ['unknown field', { question: 'q', docSetNames: ['manuals'], topK: 3 }, 'topK'],
    ];

    it.each(cases)(
      '400 VALIDATION_ERROR for %s, naming the field, with no search',
      async (_name, body, field) => {
        const spy = spySearches(app);
        try {
          const res = await ask(body);
          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({
            errorCode: 'VALIDATION_ERROR',
            field,
            message: expect.any(String),
          });
          expect(spy.queries).toHaveLength(0);
        } finally {
          spy.restore();
        }
      },
    );

    it("403 FORBIDDEN for another account's docset, an unknown one, or one with no COMPLETE document, with no search", async () => {
      const spy = spySearches(app);
      try {
        for (const names of [['bobs'], ['manuals', 'bobs'], ['nope'], ['queued']]) {
          const res = await ask({ question: 'geometry margins', docSetNames: names });
          expect(res.status).toBe(403);
          expect(res.body).toEqual({ errorCode: 'FORBIDDEN', message: expect.any(String) });
          const streamed = await ask({ question: 'geometry margins', docSetNames: names, stream: true });
          expect(streamed.status).toBe(403);
          expect(streamed.body.errorCode).toBe('FORBIDDEN');
        }
        expect(spy.queries).toHaveLength(0);
      } finally {
        spy.restore();
      }
    });

    it("403 for a docset outside a restricted token's scope; 401 without a token", async () => {
      const limited = await restrictedToken(app, alice, ['notes']);
      const spy = spySearches(app);
      try {
        const res = await ask({ question: 'margins', docSetNames: ['manuals'] }, limited);
        expect(res.status).toBe(403);
        expect(res.body.errorCode).toBe('FORBIDDEN');
        expect(spy.queries).toHaveLength(0);
        const ok = await ask({ question: 'travel policy', docSetNames: ['notes'] }, limited);
        expect(ok.status).toBe(200);
        const anon = await app.client.post(ASK, { question: 'margins', docSetNames: ['manuals'] });
        expect(anon.status).toBe(401);
        expect(anon.body.errorCode).toBe('UNAUTHENTICATED');
      } finally {
        spy.restore();
      }
    });

    it('503 CAPABILITY_DISABLED for a Cohere model when Cohere is not configured', async () => {
      const res = await ask({
        question: 'margins',
        docSetNames: ['manuals'],
        config: { model: 'command-r' },
      });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ errorCode: 'CAPABILITY_DISABLED', field: 'config.model' });
    });
  });

  it('documents /ask (JSON and SSE events), /summary and the document endpoints in OpenAPI', async () => {
    const res = await app.client.get('/api/docs-json');
    expect(res.status).toBe(200);
    const paths = res.body.paths;
    const ask = paths['/api/v1/document_proxy/ask'].post;
    expect(Object.keys(ask.responses['200'].content).sort()).toEqual([
      'application/json',
      'text/event-stream',
    ]);
    expect(JSON.stringify(ask.responses['200'].content['text/event-stream'])).toContain('AskDoneEventDto');
    for (const code of ['400', '401', '403', '503']) expect(ask.responses[code]).toBeDefined();
    const schemas = res.body.components.schemas;
    for (const name of [
      'AskDeltaEventDto',
      'AskCitationsEventDto',
      'AskDoneEventDto',
      'AskErrorEventDto',
      'CitationDto',
      'UsageDto',
    ])
      expect(schemas[name]).toBeDefined();
    expect(schemas.AskConfigDto.properties.retrievalLimit).toMatchObject({
      minimum: 1,
      maximum: 50,
      default: 8,
    });
    for (const p of [
      '/api/v1/document_proxy/summary',
      '/api/v1/document_proxy/documents',
      '/api/v1/document_proxy/documents/recent',
      '/api/v1/document_proxy/documents/docsets',
      '/api/v1/document_proxy/documents/metadata/{docSetName}',
      '/api/v1/document_proxy/documents/{id}',
    ])
      expect(paths[p]).toBeDefined();
  });

  describe('POST /summary', () => {
    it('titles a conversation', async () => {
      const res = await app.client.post(
        SUMMARY,
        {
          pastMessages: [
            {
              role: 'user',
              content: 'How can I control the file names MetaPost uses for the figures it writes?',
            },
            { role: 'assistant', content: 'Assign a template string to outputtemplate. [1]' },
          ],
        },
        { token: alice.token },
      );
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ title: expect.any(String) });
      expect(res.body.title.length).toBeGreaterThan(3);
      expect(res.body.title.length).toBeLessThanOrEqual(60);
      expect(res.body.title).toMatch(/MetaPost/);
    });

    it('validates pastMessages', async () => {
      for (const [body, field] of [
        [{}, 'pastMessages'],
        [{ pastMessages: [] }, 'pastMessages'],
        [{ pastMessages: [{ role: 'bot', content: 'x' }] }, 'pastMessages.0.role'],
        [{ pastMessages: 'hello' }, 'pastMessages'],
      ] as const) {
        const res = await app.client.post(SUMMARY, body, { token: alice.token });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field });
      }
      const anon = await app.client.post(SUMMARY, { pastMessages: [{ role: 'user', content: 'x' }] });
      expect(anon.status).toBe(401);
    });
  });
});
