import { NO_ANSWER_TEXT } from '@docqa/answers';
import { chunkPages } from '@docqa/indexing';
import type { TestApp } from '../support/app';
import { qaItem, seedDocuments } from '../support/seed';
import { postSse } from '../support/sse';
import { useAskFixture } from './ask-fixture';
import {
  ASK,
  Caller,
  CITATION_SHAPE,
  expectMarkersResolve,
  norm,
  spyEngineReads,
  spySearches,
} from './support';

/**
 * POST /ask's answers, JSON and streamed, on the local provider, against the test Elasticsearch,
 * with dev-corpus PDFs seeded through the SearchIndex port (test/ask/pipeline.e2e-spec.ts covers
 * the real indexing pipeline; ask-contract.e2e-spec.ts the validation, OpenAPI and /summary).
 */
describe('POST /ask (local provider, Elasticsearch)', () => {
  const fixture = useAskFixture();
  const { ask, embedderModel } = fixture;
  let app: TestApp;
  let alice: Caller;
  beforeAll(() => void ({ app, alice } = fixture));

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
});
