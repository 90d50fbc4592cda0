import { GENERATOR, Generator, Passage, REWRITER, Rewriter } from '@docqa/answers';
import { startTestApp, TestApp } from '../support/app';
import { closeCorpusExtractor, qaItem, seedCorpus, seedDocuments } from '../support/seed';
import { ASK, Caller, newCaller, restrictedToken, SEARCH, spyEngineReads, spySearches } from './support';

/**
 * POST /search (extension): the passages /ask answers from, ranked by the same retrieval, on the
 * local provider (rewriter, MiniLM, local reranker) against the test Elasticsearch, with dev-corpus
 * PDFs seeded through the SearchIndex port.
 */
describe('POST /search (local provider, Elasticsearch)', () => {
  let app: TestApp;
  let alice: Caller;
  let bob: Caller;

  const RESULT_SHAPE = {
    text: expect.any(String),
    fileName: expect.any(String),
    pageNumber: expect.stringMatching(/^\d+$/),
    docSetName: expect.any(String),
    documentId: expect.any(String),
    sourceType: 'S3',
    sourceMetadata: {
      sourceId: expect.any(String),
      documentId: expect.any(String),
      docSetName: expect.any(String),
    },
    score: expect.any(Number),
  };

  beforeAll(async () => {
    app = await startTestApp();
    alice = await newCaller(app);
    bob = await newCaller(app);
    await seedCorpus(app, alice.accountId, 'manuals', ['geometry.pdf', 'booktabs.pdf', 'screenplay.pdf']);
    await seedDocuments(app, alice.accountId, [
      { docSetName: 'notes', fileName: 'notes.txt', pages: ['Quarterly notes about the travel policy.'] },
      { docSetName: 'queued', fileName: 'later.pdf', pages: ['not indexed yet'], status: 'PENDING' },
    ]);
    await seedDocuments(app, bob.accountId, [
      { docSetName: 'bobs', fileName: 'bob.pdf', pages: ['Bob keeps the geometry margins secret: 7cm.'] },
    ]);
    // ~170 chunks through the real MiniLM embedder: seconds idle, minutes on shared cores.
  }, 900_000);

  afterAll(async () => {
    await closeCorpusExtractor();
    await app?.close();
  });

  const search = (body: unknown, token = alice.token) => app.client.post(SEARCH, body, { token });

  describe('results', () => {
    it('ranks the passage that answers first, shaped as citations are, best first', async () => {
      const item = qaItem('dev-001'); // latex set all margins 2cm -> geometry.pdf p1
      const res = await search({ query: item.question, docSetNames: ['manuals'] });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['results']);
      const results = res.body.results as Array<Record<string, any>>;
      expect(results).toHaveLength(10); // the default limit
      for (const r of results) {
        expect(r).toEqual(RESULT_SHAPE);
        expect(r.docSetName).toBe('manuals');
        expect(r.sourceMetadata).toEqual({
          sourceId: `bucket/manuals/${r.fileName}`,
          documentId: r.documentId,
          docSetName: 'manuals',
        });
      }
      expect(results[0]).toMatchObject({ fileName: 'geometry.pdf', pageNumber: '1' });
      expect(results[0].text).toContain('margin=2cm');
      // A single-document question: the reranker's order, its scores never increase.
      const scores = results.map((r) => r.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(new Set(results.map((r) => `${r.documentId}#${r.text}`)).size).toBe(results.length);
    });

    it('returns `limit` results, a prefix of a longer ranking with the same candidates', async () => {
      const body = { query: 'booktabs rule width', docSetNames: ['manuals'] };
      const three = await search({ ...body, limit: 3 });
      const six = await search({ ...body, limit: 6 });
      const one = await search({ ...body, limit: 1 });
      const fifty = await search({ ...body, limit: 50 });
      expect([three.status, six.status, one.status, fifty.status]).toEqual([200, 200, 200, 200]);
      expect(three.body.results).toHaveLength(3);
      expect(six.body.results).toHaveLength(6);
      expect(one.body.results).toHaveLength(1);
      expect(fifty.body.results.length).toBeGreaterThan(6);
      expect(fifty.body.results.length).toBeLessThanOrEqual(50);
      // Limits up to 6 ask the engine for the same 20 candidates (the reranker's minimum depth).
      expect(three.body.results).toEqual(six.body.results.slice(0, 3));
      expect(one.body.results).toEqual(six.body.results.slice(0, 1));
    });

    it('searches the keyword route as typed and sends a question through the rewriter, as /ask', async () => {
      const spy = spySearches(app);
      const rewrites = jest.spyOn(app.api.app.get<Rewriter>(REWRITER), 'rewrite');
      try {
        await search({ query: '  latex   set all margins 2cm ', docSetNames: ['manuals'] });
        expect(spy.queries[0].text).toBe('latex set all margins 2cm');
        expect(rewrites).not.toHaveBeenCalled();
        await search({ query: qaItem('dev-003').question, docSetNames: ['manuals'] });
        expect(rewrites).toHaveBeenCalledTimes(1);
        await app.client.post(
          ASK,
          { question: qaItem('dev-003').question, docSetNames: ['manuals'] },
          { token: alice.token },
        );
        expect(rewrites).toHaveBeenCalledTimes(2);
        // The same rewritten query, vector and options reach the engine (limits apart).
        const [fromSearch, fromAsk] = [spy.queries[1], spy.queries[2]];
        expect(fromSearch.text).toBe((await rewrites.mock.results[0].value).query);
        expect({ ...fromSearch, limit: 0 }).toEqual({ ...fromAsk, limit: 0 });
        expect(spy.queries).toHaveLength(3);
      } finally {
        rewrites.mockRestore();
        spy.restore();
      }
    });

    it("honours minimumSimilarityScore and never returns another account's passages", async () => {
      const spy = spySearches(app);
      try {
        const res = await search({
          query: 'geometry margins secret 7cm',
          docSetNames: ['manuals'],
          config: { minimumSimilarityScore: 0.2 },
        });
        expect(res.status).toBe(200);
        expect(spy.queries[0]).toMatchObject({ accountId: alice.accountId, minimumSimilarityScore: 0.2 });
        for (const r of res.body.results) expect(r.fileName).not.toBe('bob.pdf');
      } finally {
        spy.restore();
      }
    });

    it('reads the engine once per search', async () => {
      const spy = spyEngineReads(app);
      try {
        const res = await search({ query: qaItem('dev-055').question, docSetNames: ['manuals'] });
        expect(res.status).toBe(200);
        expect(spy.reads).toEqual(['search']);
      } finally {
        spy.restore();
      }
    });
  });

  describe('the same retrieval as /ask', () => {
    const questions = [
      qaItem('dev-001').question, // keyword route
      qaItem('dev-003').question, // rewriter
      qaItem('dev-007').question,
      qaItem('dev-055').question,
      'Compare the margins of geometry with the rules of booktabs', // diversity across documents
    ];

    it.each(questions)("/search with /ask's limit returns the passages /ask answers from: %s", async (q) => {
      const generator = app.api.app.get<Generator>(GENERATOR);
      const original = generator.generate.bind(generator);
      const seen: Passage[][] = [];
      const spy = jest.spyOn(generator, 'generate').mockImplementation((input) => {
        seen.push(input.passages);
        return original(input);
      });
      try {
        const asked = await app.client.post(
          ASK,
          { question: q, docSetNames: ['manuals'] },
          { token: alice.token },
        );
        expect(asked.status).toBe(200);
        const found = await search({ query: q, docSetNames: ['manuals'], limit: 8 });
        expect(found.status).toBe(200);
        const results = found.body.results as Array<Record<string, any>>;
        expect(seen).toHaveLength(1);
        const passages = seen[0];
        // Passage n of the answer is result n of /search (its text maybe with the rest of a cut
        // sentence around it).
        expect(results.map((r) => [r.fileName, r.pageNumber])).toEqual(
          passages.map((p) => [p.fileName, String(p.pageNumber)]),
        );
        results.forEach((r, i) => expect(passages[i].text).toContain(r.text));
        // Every citation of the answer is one of the results, with the same source fields.
        const sources = results.map((r) => ({
          fileName: r.fileName,
          pageNumber: r.pageNumber,
          sourceType: r.sourceType,
          sourceMetadata: r.sourceMetadata,
        }));
        for (const { index: _index, ...c } of asked.body.citations) expect(sources).toContainEqual(c);
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe('validation and authorisation come before any retrieval', () => {
    const cases: Array<[string, unknown, string]> = [
      ['missing query', { docSetNames: ['manuals'] }, 'query'],
      ['empty query', { query: '', docSetNames: ['manuals'] }, 'query'],
      ['blank query', { query: '   ', docSetNames: ['manuals'] }, 'query'],
      ['query of 4,001 characters', { query: 'x'.repeat(4001), docSetNames: ['manuals'] }, 'query'],
      ['query not a string', { query: 42, docSetNames: ['manuals'] }, 'query'],
      ['missing docSetNames', { query: 'margins' }, 'docSetNames'],
      ['empty docSetNames', { query: 'margins', docSetNames: [] }, 'docSetNames'],
      ['docSetNames not an array', { query: 'margins', docSetNames: 'manuals' }, 'docSetNames'],
      ['non-string docset', { query: 'margins', docSetNames: [1] }, 'docSetNames'],
      ['docset with a leading space', { query: 'margins', docSetNames: [' manuals'] }, 'docSetNames'],
      [
        'too many docsets',
        { query: 'margins', docSetNames: Array.from({ length: 21 }, (_, i) => `d${i}`) },
        'docSetNames',
      ],
      ['limit 0', { query: 'margins', docSetNames: ['manuals'], limit: 0 }, 'limit'],
      ['limit 51', { query: 'margins', docSetNames: ['manuals'], limit: 51 }, 'limit'],
      ['limit 2.5', { query: 'margins', docSetNames: ['manuals'], limit: 2.5 }, 'limit'],
      ['limit a string', { query: 'margins', docSetNames: ['manuals'], limit: '5' }, 'limit'],
      ['config not an object', { query: 'margins', docSetNames: ['manuals'], config: 3 }, 'config'],
      [
        'similarity 1.5',
        { query: 'margins', docSetNames: ['manuals'], config: { minimumSimilarityScore: 1.5 } },
        'config.minimumSimilarityScore',
      ],
      [
        'similarity a string',
        { query: 'margins', docSetNames: ['manuals'], config: { minimumSimilarityScore: 'high' } },
        'config.minimumSimilarityScore',
      ],
      [
        'unknown config key',
        { query: 'margins', docSetNames: ['manuals'], config: { retrievalLimit: 3 } },
        'config.retrievalLimit',
      ],
      ['unknown field', { query: 'margins', docSetNames: ['manuals'], question: 'q' }, 'question'],
    ];

    it.each(cases)(
      '400 VALIDATION_ERROR for %s, naming the field, with no search',
      async (_name, body, field) => {
        const spy = spySearches(app);
        try {
          const res = await search(body);
          expect(res.status).toBe(400);
          expect(res.body).toEqual({ errorCode: 'VALIDATION_ERROR', field, message: expect.any(String) });
          expect(spy.queries).toHaveLength(0);
        } finally {
          spy.restore();
        }
      },
    );

    it('400 for a body that is not JSON, never a 500', async () => {
      const res = await app.client.request('POST', SEARCH, {
        token: alice.token,
        rawBody: '{"query": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('MALFORMED_JSON');
    });

    it("403 FORBIDDEN for another account's docset, an unknown one, or one with no COMPLETE document, with no search", async () => {
      const spy = spySearches(app);
      try {
        for (const names of [['bobs'], ['manuals', 'bobs'], ['nope'], ['queued']]) {
          const res = await search({ query: 'geometry margins', docSetNames: names });
          expect(res.status).toBe(403);
          expect(res.body).toEqual({ errorCode: 'FORBIDDEN', message: expect.any(String) });
        }
        // Bob's own docset is Bob's to search.
        const own = await search({ query: 'geometry margins', docSetNames: ['bobs'] }, bob.token);
        expect(own.status).toBe(200);
        expect(own.body.results.map((r: { fileName: string }) => r.fileName)).toEqual(['bob.pdf']);
        expect(spy.queries).toHaveLength(1);
      } finally {
        spy.restore();
      }
    });

    it("403 for a docset outside a restricted token's scope; 401 without a token", async () => {
      const limited = await restrictedToken(app, alice, ['notes']);
      const spy = spySearches(app);
      try {
        const res = await search({ query: 'margins', docSetNames: ['manuals'] }, limited);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ errorCode: 'FORBIDDEN', message: expect.any(String) });
        expect(spy.queries).toHaveLength(0);
        const ok = await search({ query: 'travel policy', docSetNames: ['notes'] }, limited);
        expect(ok.status).toBe(200);
        expect(ok.body.results).toMatchObject([{ fileName: 'notes.txt', docSetName: 'notes' }]);
        const anon = await app.client.post(SEARCH, { query: 'margins', docSetNames: ['manuals'] });
        expect(anon.status).toBe(401);
        expect(anon.body.errorCode).toBe('UNAUTHENTICATED');
        const wrong = await search({ query: 'margins', docSetNames: ['manuals'] }, 'not-a-token');
        expect(wrong.status).toBe(401);
        expect(wrong.body.errorCode).toBe('UNAUTHENTICATED');
      } finally {
        spy.restore();
      }
    });
  });
});
