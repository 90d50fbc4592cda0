import { EMBEDDER, Embedder } from '@docqa/embeddings';
import { NO_ANSWER_TEXT } from '@docqa/answers';
import { startTestApp, TestApp } from '../support/app';
import { chunkPages } from '@docqa/indexing';
import { closeCorpusExtractor, qaItem, seedCorpus, seedDocuments } from '../support/seed';
import { postSse } from '../support/sse';
import {
  ASK,
  Caller,
  CITATION_SHAPE,
  expectMarkersResolve,
  newCaller,
  norm,
  restrictedToken,
  spyEngineReads,
  spySearches,
  SUMMARY,
} from './support';

/**
 * POST /ask and /summary on the local provider, against the test Elasticsearch, with dev-corpus
 * PDFs seeded through the SearchIndex port (test/ask/pipeline.e2e-spec.ts covers the real
 * indexing pipeline).
 */
describe('POST /ask (local provider, Elasticsearch)', () => {
  let app: TestApp;
  let alice: Caller;
  let bob: Caller;

  beforeAll(async () => {
    app = await startTestApp();
    alice = await newCaller(app);
    bob = await newCaller(app);
    await seedCorpus(app, alice.accountId, 'manuals', [
      'geometry.pdf',
      'mpman.pdf',
      'booktabs.pdf',
      'screenplay.pdf',
    ]);
    await seedDocuments(app, alice.accountId, [
      { docSetName: 'queued', fileName: 'later.pdf', pages: ['not indexed yet'], status: 'PENDING' },
      { docSetName: 'notes', fileName: 'notes.txt', pages: ['Quarterly notes about the travel policy.'] },
    ]);
    await seedDocuments(app, bob.accountId, [
      { docSetName: 'bobs', fileName: 'bob.pdf', pages: ['Bob keeps the geometry margins secret: 7cm.'] },
    ]);
    // ~510 chunks through the real MiniLM embedder: ~20 s on an idle 2-core machine, minutes
    // when the cores are shared (the wait is bounded by CPU load, not by the product)
  }, 900_000);

  afterAll(async () => {
    await closeCorpusExtractor();
    await app?.close();
  });

  /** The configured embedder's model (all-MiniLM-L6-v2, or its int8 space on CPUs with VNNI). */
  const embedderModel = () => app.api.app.get<Embedder>(EMBEDDER).modelName;

  const ask = (body: unknown, token = alice.token, headers?: Record<string, string>) =>
    app.client.post(ASK, body, { token, headers });

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

  describe('answers', () => {
    it('answers a keyword question from the corpus with the right file and page, every marker resolving', async () => {
      const item = qaItem('dev-001'); // latex set all margins 2cm -> geometry.pdf p1
      const res = await ask({ question: item.question, docSetNames: ['manuals'] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        answer: expect.any(String),
        citations: expect.any(Array),
        usage: expect.any(Object),
      });
      const { answer, citations, usage } = res.body;
      expect(norm(answer)).toContain(norm(item.answer));
      expect(citations.length).toBeGreaterThan(0);
      for (const c of citations) expect(c).toEqual(CITATION_SHAPE);
      expect(citations[0]).toMatchObject({
        index: 1,
        fileName: 'geometry.pdf',
        pageNumber: '1',
        sourceType: 'S3',
        sourceMetadata: { sourceId: 'bucket/manuals/geometry.pdf', docSetName: 'manuals' },
      });
      expectMarkersResolve(answer, citations);
      // Usage: embedder, reranker and generator (no rewriter on the keyword route).
      expect(usage.perModel.map((m: { model: string }) => m.model)).toEqual([
        embedderModel(),
        'local-reranker',
        'local',
      ]);
      expect(usage.calls).toBe(3);
      expect(usage.inputTokens).toBe(usage.perModel.reduce((s: number, m: any) => s + m.inputTokens, 0));
      expect(usage.outputTokens).toBeGreaterThan(0);
    });

    it('completes a sentence the chunk cuts off, from the chunk that follows, citing the chunk', async () => {
      // A page whose chunk boundary falls inside the sentence that answers: the retrieved chunk
      // holds its start (and the intro that ranks it first), the next chunk its end.
      const intro = 'The quokka routine keeps the sensor array of the plant calibrated.';
      const answer =
        'After every cold start the quokka routine compares the ambient pressure with the baseline ' +
        'stored by the previous session and then sets the drift tolerance of the sensor array to ' +
        'exactly 42 millimetres.';
      const filler = (n: number) =>
        Array.from({ length: n }, (_, i) => `Valve ${i} of the cooling loop is inspected every week.`);
      const page = (n: number) => [intro, ...filler(n), answer, ...filler(12)].join('\n');
      const n = Array.from({ length: 40 }, (_, i) => i).find((k) => {
        const first = chunkPages([{ pageNumber: 1, text: page(k) }])[0].text;
        return first.includes('After every cold start the quokka') && !first.includes('42 millimetres');
      });
      expect(n).toBeDefined();
      await seedDocuments(app, alice.accountId, [
        { docSetName: 'plant', fileName: 'plant-manual.pdf', pages: ['Contents', page(n!)] },
      ]);
      const res = await ask({
        question: 'What does the quokka routine do after a cold start?',
        docSetNames: ['plant'],
        config: { retrievalLimit: 1 },
      });
      expect(res.status).toBe(200);
      expect(res.body.answer).toContain('to exactly 42 millimetres. [1]');
      expect(res.body.citations).toMatchObject([{ index: 1, fileName: 'plant-manual.pdf', pageNumber: '2' }]);
    });

    it('gives a passage that starts mid-sentence the start of that sentence from the chunk before', async () => {
      // The answering sentence runs over a page break: the page that ranks holds only its end and
      // opens in lower case; the page before, which no query word names, holds its start.
      const filler = Array.from(
        { length: 6 },
        (_, i) => `Pump ${i} of the cooling loop is inspected every week.`,
      );
      await seedDocuments(app, alice.accountId, [
        {
          docSetName: 'handbook',
          fileName: 'plant-handbook.pdf',
          pages: [
            'Contents',
            [...filler, 'After every cold start the plant operator waits until the'].join('\n'),
            [
              'quokka routine sets the drift tolerance of the sensor array to exactly 42 millimetres.',
              'The quokka routine records the drift tolerance of the sensor array in the shift log.',
            ].join('\n'),
          ],
        },
      ]);
      const res = await ask({
        question: 'What drift tolerance does the quokka routine set for the sensor array?',
        docSetNames: ['handbook'],
        config: { retrievalLimit: 1 },
      });
      expect(res.status).toBe(200);
      expect(res.body.answer).toContain(
        'After every cold start the plant operator waits until the quokka routine sets the drift tolerance',
      );
      expect(res.body.answer).toContain('to exactly 42 millimetres. [1]');
      expect(res.body.citations).toMatchObject([
        { index: 1, fileName: 'plant-handbook.pdf', pageNumber: '3' },
      ]);
    });

    it('answers a natural-language question through the rewriter', async () => {
      const item = qaItem('dev-021'); // how many basic data types -> mpman.pdf p15
      const spy = spySearches(app);
      try {
        const res = await ask({ question: item.question, docSetNames: ['manuals'] });
        expect(res.status).toBe(200);
        expect(norm(res.body.answer)).toContain(norm(item.answer));
        expect(res.body.citations[0]).toMatchObject({
          fileName: 'mpman.pdf',
          pageNumber: String(item.page),
        });
        expectMarkersResolve(res.body.answer, res.body.citations);
        expect(res.body.usage.perModel.map((m: { model: string }) => m.model)).toEqual([
          'local-rewriter',
          embedderModel(),
          'local-reranker',
          'local',
        ]);
        // One retrieval (24 candidates, cut to retrievalLimit 8 by the reranker); the topic
        // probes and the chunks around the passages are one read more (chunksAndTerms).
        expect(spy.queries).toHaveLength(1);
        expect(spy.queries[0]).toMatchObject({
          accountId: alice.accountId,
          docSetNames: ['manuals'],
          limit: 24,
        });
      } finally {
        spy.restore();
      }
    });

    it('keyword route searches the words as typed; the rewrite route folds history into the query', async () => {
      const spy = spySearches(app);
      try {
        await ask({ question: '  latex   set all margins 2cm ', docSetNames: ['manuals'] });
        expect(spy.queries[0].text).toBe('latex set all margins 2cm');
        const item = qaItem('dev-020'); // "What is its default value?" after outputtemplate history
        await ask({ question: item.question, docSetNames: ['manuals'], pastMessages: item.pastMessages });
        expect(spy.queries[1].text.startsWith(item.question)).toBe(true);
        expect(spy.queries[1].text).toContain('outputtemplate');
        // promptContext alone also sends even a short keyword question through the rewriter.
        const res = await ask({
          question: 'margins 2cm',
          docSetNames: ['manuals'],
          promptContext: 'You help LaTeX users.',
        });
        expect(res.body.usage.perModel[0].model).toBe('local-rewriter');
      } finally {
        spy.restore();
      }
    });

    it('answers a follow-up question using pastMessages', async () => {
      const item = qaItem('dev-058'); // "And how do I end the final scene?" after starting a screenplay
      const res = await ask({
        question: item.question,
        docSetNames: ['manuals'],
        pastMessages: item.pastMessages,
      });
      expect(res.status).toBe(200);
      expect(res.body.answer).toContain('\\fadeout');
      expect(res.body.citations).toEqual([
        expect.objectContaining({ fileName: 'screenplay.pdf', pageNumber: '3' }),
      ]);
      expectMarkersResolve(res.body.answer, res.body.citations);
    });

    it('says plainly that the documents do not cover a question, with no citations, in two engine reads', async () => {
      const spy = spyEngineReads(app);
      try {
        const res = await ask({
          question: 'How do I run Mnesia inside a Docker container?',
          docSetNames: ['manuals'],
        });
        expect(res.status).toBe(200);
        expect(res.body.answer).toBe(NO_ANSWER_TEXT);
        expect(res.body.citations).toEqual([]);
        // The retrieval, then the topic probes (Mnesia, Docker) with the chunks around the passages.
        expect(spy.reads).toEqual(['search', 'chunksAndTerms']);
      } finally {
        spy.restore();
      }
    });

    it('never retrieves from another account, even for the same words', async () => {
      const spy = spySearches(app);
      try {
        const res = await ask({ question: 'geometry margins secret 7cm', docSetNames: ['manuals'] });
        for (const c of res.body.citations) expect(c.fileName).not.toBe('bob.pdf');
        expect(spy.queries[0].accountId).toBe(alice.accountId);
      } finally {
        spy.restore();
      }
    });

    it('honours retrievalLimit and minimumSimilarityScore', async () => {
      const spy = spySearches(app);
      try {
        const res = await ask({
          question: 'latex set all margins 2cm',
          docSetNames: ['manuals'],
          config: { retrievalLimit: 1, minimumSimilarityScore: 0.2, model: 'local' },
        });
        expect(res.status).toBe(200);
        expect(res.body.citations.length).toBeLessThanOrEqual(1);
        expect(spy.queries[0]).toMatchObject({ limit: 20, minimumSimilarityScore: 0.2 });
      } finally {
        spy.restore();
      }
    });
  });

  describe('streaming (Server-Sent Events)', () => {
    it('streams deltas, then citations, then a final event with usage (stream: true)', async () => {
      const item = qaItem('dev-001');
      const r = await postSse(
        app,
        ASK,
        { question: item.question, docSetNames: ['manuals'], stream: true },
        { token: alice.token },
      );
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(r.ended).toBe(true);
      const types = r.events.map((e) => e.event);
      const deltas = types.filter((t) => t === 'delta').length;
      expect(deltas).toBeGreaterThan(1);
      expect(types).toEqual([...Array(deltas).fill('delta'), 'citations', 'done']);
      for (const e of r.events) expect(e.data.type).toBe(e.event);
      expect(r.events.map((e) => Number(e.id))).toEqual(r.events.map((_, i) => i + 1));
      const answer = r.events
        .filter((e) => e.event === 'delta')
        .map((e) => e.data.text)
        .join('');
      const done = r.events.at(-1)!.data;
      const citations = r.events.find((e) => e.event === 'citations')!.data.citations;
      expect(done.answer).toBe(answer);
      expect(done.usage).toMatchObject({ calls: 3, perModel: expect.any(Array) });
      expect(norm(answer)).toContain(norm(item.answer));
      expect(citations[0]).toMatchObject({ fileName: 'geometry.pdf', pageNumber: '1' });
      expectMarkersResolve(answer, citations);
      // The same answer as the JSON response.
      const json = await ask({ question: item.question, docSetNames: ['manuals'] });
      expect(json.body.answer).toBe(answer);
      expect(json.body.citations).toEqual(citations);
    });

    it('selects streaming with Accept: text/event-stream', async () => {
      const r = await postSse(
        app,
        ASK,
        { question: 'booktabs rules', docSetNames: ['manuals'] },
        {
          token: alice.token,
          headers: { accept: 'text/event-stream' },
        },
      );
      expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(r.events.at(-1)?.event).toBe('done');
      const plain = await ask(
        { question: 'booktabs rules', docSetNames: ['manuals'], stream: false },
        alice.token,
        {
          accept: 'text/event-stream',
        },
      );
      expect(plain.headers['content-type']).toMatch(/json/);
    });

    it('streams the not-found answer with empty citations', async () => {
      const r = await postSse(
        app,
        ASK,
        {
          question: 'How do I install FreeFEM on macOS with Homebrew?',
          docSetNames: ['manuals'],
          stream: true,
        },
        { token: alice.token },
      );
      const deltas = r.events.filter((e) => e.event === 'delta');
      expect(r.events.map((e) => e.event)).toEqual([...deltas.map(() => 'delta'), 'citations', 'done']);
      expect(deltas.map((e) => e.data.text).join('')).toBe(NO_ANSWER_TEXT);
      expect(r.events.at(-2)!.data.citations).toEqual([]);
    });

    it('answers a validation error in JSON, not as a stream', async () => {
      const r = await postSse(
        app,
        ASK,
        { question: '', docSetNames: ['manuals'], stream: true },
        { token: alice.token },
      );
      expect(r.status).toBe(400);
      expect(JSON.parse(r.text!)).toMatchObject({ errorCode: 'VALIDATION_ERROR', field: 'question' });
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
