import { EVIDENCE_TEXT } from '@docqa/answers';
import { FakeOpenAi, promptPassages, startFakeOpenAi } from '../support/fake-openai';
import { startTestApp, TestApp } from '../support/app';
import { closeCorpusExtractor, pgOf, seedCorpus } from '../support/seed';
import { postSse } from '../support/sse';
import { ASK, Caller, expectMarkersResolve, newCaller, SUMMARY } from './support';

/**
 * The OpenAI-compatible provider end to end: the real `openai` client against a local server
 * speaking the chat completions wire format (JSON and SSE streams, structured outputs, 429/5xx with
 * Retry-After), on the embedded search engine with the local embedder and reranker.
 */
describe('POST /ask with an OpenAI-compatible provider (local wire-format server)', () => {
  let fake: FakeOpenAi;
  let app: TestApp;
  let caller: Caller;

  beforeAll(async () => {
    fake = await startFakeOpenAi({ apiKey: 'sk-test-openai-key' });
    app = await startTestApp({
      embeddedSearch: true,
      env: {
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: 'sk-test-openai-key',
        OPENAI_MODEL: 'llama-3.1-8b-instruct',
        LLM_MODEL_PATH: '/nonexistent/docqa-test-model.gguf',
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
    fake.delayMs = 0;
    fake.reply = undefined;
    fake.abortedStreams = 0;
    fake.finishedStreams = 0;
  });

  it('answers with cited sentences: prompt numbers mapped to citations, unused passages not cited', async () => {
    const res = await app.client.post(
      ASK,
      { question: 'How do I set the margins with geometry?', docSetNames: ['manuals'] },
      { token: caller.token },
    );
    expect(res.status).toBe(200);
    const { answer, citations, usage } = res.body;
    // The fake cites the first two passages of the prompt, one sentence each.
    expect(answer).toMatch(/^.+ \[1\] .+ \[\d\]$/);
    expectMarkersResolve(answer, citations);
    const call = fake.calls.find((c) => c.body.response_format)!;
    expect(call.body.stream).toBeFalsy();
    const passages = promptPassages(call.body.messages![1].content);
    expect(passages.length).toBeGreaterThan(2); // more passages were given than cited
    expect(citations.length).toBeLessThanOrEqual(2);
    // Citation 1 is the page of prompt passage 1, whose text the fake quoted in the first sentence.
    const db = await pgOf(app);
    try {
      const { rows } = await db.query(
        `SELECT p.text FROM document_pages p JOIN documents d ON d.id = p.document_id
          WHERE d.account_id = $1 AND d.file_name = $2 AND p.page_number = $3`,
        [caller.accountId, citations[0].fileName, Number(citations[0].pageNumber)],
      );
      const squash = (t: string) => t.replace(/\s+/g, ' ');
      expect(squash(rows[0].text)).toContain(squash(passages[0].text).slice(0, 40));
    } finally {
      await db.end();
    }
    // Usage per model: the chat model once (no history: no rewrite call), the local embedder and reranker.
    const byModel = Object.fromEntries(usage.perModel.map((m: any) => [m.model, m]));
    expect(byModel['llama-3.1-8b-instruct']).toMatchObject({ calls: 1 });
    expect(byModel['llama-3.1-8b-instruct'].inputTokens).toBeGreaterThan(50);
    expect(fake.calls.every((c) => c.authorization === 'Bearer sk-test-openai-key')).toBe(true);
  });

  it('streams delta events that concatenate to the cited answer', async () => {
    const r = await postSse(
      app,
      ASK,
      { question: 'booktabs rules', docSetNames: ['manuals'], stream: true },
      { token: caller.token },
    );
    expect(r.status).toBe(200);
    const types = r.events.map((e) => e.event);
    const deltas = types.filter((t) => t === 'delta').length;
    expect(deltas).toBeGreaterThan(3);
    expect(types).toEqual([...Array(deltas).fill('delta'), 'citations', 'done']);
    const answer = r.events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text)
      .join('');
    expectMarkersResolve(answer, r.events.at(-2)!.data.citations);
    expect(r.events.at(-1)!.data.answer).toBe(answer);
    expect(fake.calls.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('answers not found without citations when the model finds nothing and the passages are not about it', async () => {
    const res = await app.client.post(
      ASK,
      { question: 'How far away is the moon from the rings of Jupiter?', docSetNames: ['manuals'] },
      { token: caller.token },
    );
    expect(res.status).toBe(200);
    expect(res.body.citations).toEqual([]);
    expect(res.body.answer).toMatch(/could not find an answer/);
  });

  it('shows the closest evidence when the model finds nothing in passages that are about the question', async () => {
    const res = await app.client.post(
      ASK,
      { question: 'How far away is the moon from geometry margins?', docSetNames: ['manuals'] },
      { token: caller.token },
    );
    expect(res.status).toBe(200);
    expect(res.body.answer.startsWith(EVIDENCE_TEXT)).toBe(true);
    expect(res.body.citations.length).toBeGreaterThan(0);
    expect(res.body.citations.length).toBeLessThanOrEqual(3);
    expect(res.body.citations.every((c: { fileName: string }) => c.fileName === 'geometry.pdf')).toBe(true);
    expectMarkersResolve(res.body.answer, res.body.citations);
  });

  it('rewrites a follow-up with the model: the conversation reaches the answer only as the rewritten question', async () => {
    const res = await app.client.post(
      ASK,
      {
        question: 'And how do I make them 2cm?',
        docSetNames: ['manuals'],
        pastMessages: [
          { role: 'user', content: 'What sets page margins in LaTeX?' },
          { role: 'assistant', content: 'The geometry package sets them. [1]' },
        ],
      },
      { token: caller.token },
    );
    expect(res.status).toBe(200);
    const [rewrite, answer] = fake.calls;
    expect(rewrite.body.response_format).toBeUndefined();
    expect(rewrite.body.messages![1].content).toContain('Assistant: The geometry package sets them.');
    const prompt = answer.body.messages![1].content;
    expect(prompt).toContain('Question: And how do I make them 2cm?');
    expect(prompt).toContain(
      'this question means: And how do I make them 2cm? (context: What sets page margins in LaTeX?)',
    );
    expect(prompt).not.toContain('The geometry package sets them');
    expect(res.body.usage.perModel.find((m: any) => m.model === 'llama-3.1-8b-instruct')).toMatchObject({
      calls: 2,
    });
  });

  it('waits out a 429 with Retry-After, then answers', async () => {
    fake.failNext({ status: 429, retryAfter: '1' });
    const res = await app.client.post(
      ASK,
      { question: 'booktabs rules', docSetNames: ['manuals'] },
      { token: caller.token },
    );
    expect(res.status).toBe(200);
    expect(fake.calls).toHaveLength(2);
    expect(fake.calls[1].at - fake.calls[0].at).toBeGreaterThanOrEqual(950);
  });

  it('answers 503 DEPENDENCY_UNAVAILABLE in JSON when the server keeps failing, without its body or the key', async () => {
    fake.failNext(500, 500, 500, 500);
    const res = await app.client.post(
      ASK,
      { question: 'booktabs rules', docSetNames: ['manuals'] },
      { token: caller.token },
    );
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ errorCode: 'DEPENDENCY_UNAVAILABLE' });
    expect(res.text).not.toContain('sk-test-openai-key');
    expect(res.text).not.toContain('upstream error');
  }, 60_000);

  it('stops the model stream when the client disconnects', async () => {
    fake.streamDelayMs = 40;
    const r = await postSse(
      app,
      ASK,
      { question: 'booktabs rules', docSetNames: ['manuals'], stream: true },
      { token: caller.token, stopAfter: 1 },
    );
    expect(r.events).toHaveLength(1);
    const deadline = Date.now() + 10_000;
    while (fake.abortedStreams === 0 && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 50));
    expect(fake.abortedStreams).toBe(1);
    expect(fake.finishedStreams).toBe(0);
  });

  it('lets config.model pick the extractive answerer, and refuses local-llm while it is not installed', async () => {
    const local = await app.client.post(
      ASK,
      { question: 'latex set all margins 2cm', docSetNames: ['manuals'], config: { model: 'local' } },
      { token: caller.token },
    );
    expect(local.status).toBe(200);
    expect(local.body.usage.perModel.map((m: any) => m.model)).toContain('local');
    expect(fake.calls).toHaveLength(0);
    for (const stream of [false, true]) {
      const r = await app.client.post(
        ASK,
        {
          question: 'latex set all margins 2cm',
          docSetNames: ['manuals'],
          config: { model: 'local-llm' },
          stream,
        },
        { token: caller.token },
      );
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ errorCode: 'CAPABILITY_DISABLED', field: 'config.model' });
      expect(r.body.message).toContain('models:install -- llm');
      expect(r.text).not.toContain('/nonexistent');
    }
  });

  it('titles a conversation with the chat model', async () => {
    const res = await app.client.post(
      SUMMARY,
      { pastMessages: [{ role: 'user', content: 'How do booktabs rules work in tables?' }] },
      { token: caller.token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ title: 'How do booktabs rules' });
  });
});
