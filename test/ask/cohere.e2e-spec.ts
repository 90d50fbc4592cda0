import { FakeCohere, startFakeCohere } from '../support/fake-cohere';
import { startTestApp, TestApp } from '../support/app';
import { closeCorpusExtractor, seedCorpus } from '../support/seed';
import { postSse } from '../support/sse';
import { ASK, Caller, expectMarkersResolve, newCaller, SUMMARY } from './support';

/**
 * The Cohere provider end to end: the real cohere-ai SDK (CohereClientV2) against a local server
 * speaking Cohere's v2 wire formats (embed, chat JSON and SSE stream, rerank), on the embedded
 * search engine.
 */
describe('POST /ask with the Cohere provider (local v2 wire-format server)', () => {
  let fake: FakeCohere;
  let app: TestApp;
  let caller: Caller;

  beforeAll(async () => {
    fake = await startFakeCohere({ apiKey: 'test-cohere-key' });
    app = await startTestApp({
      embeddedSearch: true,
      env: {
        COHERE_API_KEY: 'test-cohere-key',
        COHERE_BASE_URL: fake.url,
        COHERE_CHAT_MODEL: 'command-r-08-2024',
        COHERE_RERANK_MODEL: 'rerank-v3.5',
      },
      config: { server: { sseKeepaliveMs: 100 } },
    });
    caller = await newCaller(app);
    await seedCorpus(app, caller.accountId, 'manuals', ['geometry.pdf', 'booktabs.pdf']);
  });

  afterAll(async () => {
    await closeCorpusExtractor();
    await app?.close();
    await fake.close();
  });

  beforeEach(() => {
    fake.calls.length = 0;
    fake.streamDelayMs = 0;
    fake.chatDelayMs = 0;
    fake.chatReply = undefined;
    fake.abortedStreams = 0;
    fake.finishedStreams = 0;
  });

  const chatCalls = () => fake.calls.filter((c) => c.path === '/v2/chat');

  it('answers with chat: documents sent by passage number, Cohere citations mapped to [n] and to file/page', async () => {
    const res = await app.client.post(
      ASK,
      { question: 'How do I set the margins with geometry?', docSetNames: ['manuals'] },
      { token: caller.token },
    );
    expect(res.status).toBe(200);
    const { answer, citations, usage } = res.body;
    // The fake cites the first two documents it was given, one sentence each.
    expect(answer).toMatch(/^From the documents: .+\. \[1\] .+\. \[2\]$/);
    expect(citations).toHaveLength(2);
    expectMarkersResolve(answer, citations);
    const [rewrite, answerCall] = chatCalls();
    expect(rewrite.body.documents).toBeUndefined();
    expect(answerCall.body).toMatchObject({ model: 'command-r-08-2024' });
    expect(answerCall.body.stream).toBeFalsy();
    const docs = answerCall.body.documents as Array<{ id: string; data: { title: string; snippet: string } }>;
    expect(docs.map((d) => d.id)).toEqual(docs.map((_, i) => String(i + 1)));
    // Citation k is the file and page of the document Cohere cited.
    for (const [k, c] of citations.entries()) {
      expect(docs[k].data.title).toBe(`${c.fileName}, page ${c.pageNumber}`);
      expect(c).toMatchObject({
        index: k + 1,
        sourceType: 'S3',
        sourceMetadata: { sourceId: expect.any(String) },
      });
    }
    // Usage per model: rewriter + answer on the chat model, embed and rerank counted as calls.
    const byModel = Object.fromEntries(usage.perModel.map((m: any) => [m.model, m]));
    expect(byModel['command-r-08-2024']).toMatchObject({ calls: 2 });
    expect(byModel['command-r-08-2024'].inputTokens).toBeGreaterThan(0);
    expect(byModel['command-r-08-2024'].outputTokens).toBeGreaterThan(0);
    expect(byModel['embed-english-v3.0']).toMatchObject({ calls: 1 });
    expect(byModel['rerank-v3.5']).toMatchObject({ calls: 1 });
    expect(usage.calls).toBe(4);
    expect(usage.inputTokens).toBe(usage.perModel.reduce((s: number, m: any) => s + m.inputTokens, 0));
    // The wire calls behind it: query embed, rerank of the candidates down to retrievalLimit.
    expect(fake.calls.find((c) => c.path === '/v2/embed')?.body.input_type).toBe('search_query');
    expect(fake.calls.find((c) => c.path === '/v2/rerank')?.body).toMatchObject({
      model: 'rerank-v3.5',
      top_n: 8,
    });
  });

  it('streams through chatStream: deltas, citations and usage in order', async () => {
    const r = await postSse(
      app,
      ASK,
      { question: 'booktabs rules', docSetNames: ['manuals'], stream: true },
      { token: caller.token },
    );
    expect(r.status).toBe(200);
    const types = r.events.map((e) => e.event);
    const deltas = types.filter((t) => t === 'delta').length;
    expect(deltas).toBeGreaterThan(1);
    expect(types).toEqual([...Array(deltas).fill('delta'), 'citations', 'done']);
    const answer = r.events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text)
      .join('');
    const citations = r.events.at(-2)!.data.citations;
    expect(answer).toMatch(/\[1\].*\[2\]/);
    expectMarkersResolve(answer, citations);
    expect(r.events.at(-1)!.data).toMatchObject({ answer, usage: { calls: 3 } }); // keyword route: no rewriter
    expect(chatCalls().at(-1)?.body.stream).toBe(true);
  });

  it('sends keep-alive comments while the model has not answered yet', async () => {
    fake.chatDelayMs = 700;
    const r = await postSse(
      app,
      ASK,
      { question: 'booktabs rules', docSetNames: ['manuals'], stream: true },
      { token: caller.token },
    );
    expect(r.events.at(-1)?.event).toBe('done');
    const before = r.comments.filter((c) => c.at < (r.firstEventMs ?? 0));
    expect(before.length).toBeGreaterThanOrEqual(2);
  });

  it('stops the generation when the client disconnects', async () => {
    fake.streamDelayMs = 60;
    fake.chatReply = () => ({
      text: Array.from({ length: 40 }, (_, i) => `Sentence number ${i} about margins.`).join(' '),
      citations: [{ start: 0, end: 10, sources: ['1'] }],
    });
    const r = await postSse(
      app,
      ASK,
      { question: 'booktabs rules', docSetNames: ['manuals'], stream: true },
      { token: caller.token, stopAfter: 1 },
    );
    expect(r.events).toHaveLength(1);
    expect(r.ended).toBe(false);
    // The server aborts its Cohere stream: the fake sees the connection closed early.
    const deadline = Date.now() + 10_000;
    while (fake.abortedStreams === 0 && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 50));
    expect(fake.abortedStreams).toBe(1);
    expect(fake.finishedStreams).toBe(0);
  });

  it('ends with an error event, not a hung connection, when the model fails mid-stream', async () => {
    fake.breakStreamAfter = 4;
    const r = await postSse(
      app,
      ASK,
      { question: 'booktabs rules', docSetNames: ['manuals'], stream: true },
      { token: caller.token, timeoutMs: 30_000 },
    );
    expect(r.ended).toBe(true);
    const last = r.events.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data).toEqual({
      type: 'error',
      errorCode: 'DEPENDENCY_UNAVAILABLE',
      message: expect.any(String),
    });
    expect(r.events.some((e) => e.event === 'done')).toBe(false);
    expect(JSON.stringify(r.events)).not.toContain('test-cohere-key');
  });

  it('answers 503 DEPENDENCY_UNAVAILABLE in JSON when Cohere keeps failing before the answer starts', async () => {
    fake.failNext(500, 500, 500, 500, 500); // every attempt of the query embedding (5 with backoff)
    const res = await app.client.post(
      ASK,
      { question: 'booktabs rules', docSetNames: ['manuals'] },
      { token: caller.token },
    );
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ errorCode: 'DEPENDENCY_UNAVAILABLE' });
    expect(res.text).not.toContain('test-cohere-key');
  }, 60_000);

  it('allows the local model explicitly while Cohere is configured', async () => {
    const res = await app.client.post(
      ASK,
      { question: 'latex set all margins 2cm', docSetNames: ['manuals'], config: { model: 'local' } },
      { token: caller.token },
    );
    expect(res.status).toBe(200);
    expect(res.body.usage.perModel.map((m: any) => m.model)).toContain('local');
  });

  it('titles a conversation with the chat model', async () => {
    const res = await app.client.post(
      SUMMARY,
      { pastMessages: [{ role: 'user', content: 'How do booktabs rules work in tables?' }] },
      { token: caller.token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ title: 'How do booktabs rules' });
    expect(chatCalls().at(-1)?.body.messages?.[0].role).toBe('system');
  });
});
