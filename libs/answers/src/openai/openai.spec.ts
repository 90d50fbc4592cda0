import { FakeOpenAi, startFakeOpenAi } from '../../../../test/support/fake-openai';
import { GenerateInput, GenerationEvent, NO_ANSWER_TEXT, Passage } from '../generation.port';
import { OpenAiRewriter, OpenAiTitler } from './openai.chat';
import { OpenAiGenerator } from './openai.generator';

const passages: Passage[] = [
  {
    n: 4,
    fileName: 'a.pdf',
    pageNumber: '3',
    text: 'The default value of outputtemplate is %j.%c in MetaPost.',
  },
  {
    n: 9,
    fileName: 'b.pdf',
    pageNumber: '9',
    text: 'Assign "svg" to outputformat to get SVG output [2] files.',
  },
  { n: 11, fileName: 'c.pdf', pageNumber: '1', text: 'An unrelated passage about fonts.' },
];

async function collect(events: AsyncIterable<GenerationEvent>) {
  const texts: string[] = [];
  const calls: Array<Extract<GenerationEvent, { type: 'usage' }>['call']> = [];
  for await (const e of events) {
    if (e.type === 'text') texts.push(e.text);
    else calls.push(e.call);
  }
  return { texts, answer: texts.join(''), calls };
}

describe('OpenAI-compatible provider (the openai client against a local wire-format server)', () => {
  let fake: FakeOpenAi;
  const conn = (o: Record<string, unknown> = {}) => ({
    baseUrl: fake.url,
    apiKey: 'sk-test-key',
    model: 'qwen2.5-7b-instruct',
    promptTokenBudget: 1500,
    ...o,
  });
  const input = (o: Partial<GenerateInput> = {}): GenerateInput => ({
    question: 'What is the default outputtemplate?',
    query: 'default outputtemplate',
    history: [],
    passages,
    ...o,
  });

  beforeEach(async () => {
    fake = await startFakeOpenAi({ apiKey: 'sk-test-key' });
  });
  afterEach(() => fake.close());

  it('constrains the answer with a strict JSON schema of the prompt passage numbers and cites each sentence', async () => {
    const r = await collect(new OpenAiGenerator(conn()).generate(input({ stream: false })));
    expect(r.answer).toBe(
      'The default value of outputtemplate is %j.%c in MetaPost.. [4] Assign "svg" to outputformat to get SVG output (2) files.. [9]',
    );
    const body = fake.calls[0].body;
    expect(fake.calls[0].authorization).toBe('Bearer sk-test-key');
    expect(body).toMatchObject({ model: 'qwen2.5-7b-instruct', temperature: 0 });
    expect(body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'cited_answer', strict: true },
    });
    expect(
      body.response_format!.json_schema!.schema.properties.sentences.items.properties.passage.enum,
    ).toEqual([1, 2, 3]);
    expect(body.messages![1].content).toContain(
      '[2] Assign "svg" to outputformat to get SVG output (2) files.',
    );
    expect(r.calls).toEqual([
      { model: 'qwen2.5-7b-instruct', inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    ]);
    expect(r.calls[0].inputTokens).toBeGreaterThan(20);
  });

  it('streams the same answer in many deltas, with usage from the final chunk', async () => {
    const streamed = await collect(new OpenAiGenerator(conn()).generate(input()));
    const whole = await collect(new OpenAiGenerator(conn()).generate(input({ stream: false })));
    expect(streamed.texts.length).toBeGreaterThan(5);
    expect(streamed.answer).toBe(whole.answer);
    expect(fake.calls[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(streamed.calls[0]).toEqual(whole.calls[0]);
  });

  it('estimates usage when the server sends none', async () => {
    fake.omitUsage = true;
    const r = await collect(new OpenAiGenerator(conn()).generate(input()));
    expect(r.calls[0].inputTokens).toBeGreaterThan(20);
    expect(r.calls[0].outputTokens).toBeGreaterThan(5);
  });

  it('answers not found, without markers, when the model returns no sentence', async () => {
    const r = await collect(
      new OpenAiGenerator(conn()).generate(input({ question: 'How far is the moon?' })),
    );
    expect(r.answer).toBe(NO_ANSWER_TEXT);
  });

  it('drops sentences that cite a passage it was not given', async () => {
    fake.reply = () =>
      JSON.stringify({
        sentences: [
          { passage: 7, text: 'Invented.' },
          { passage: 1, text: 'Real [3] one.' },
        ],
      });
    const r = await collect(new OpenAiGenerator(conn()).generate(input()));
    expect(r.answer).toBe('Real (3) one. [4]');
  });

  it('keeps the prompt within PROMPT_TOKEN_BUDGET', async () => {
    const long = Array.from({ length: 8 }, (_, i) => ({
      n: i + 1,
      fileName: `f${i}.pdf`,
      pageNumber: '1',
      text: 'Words about outputtemplate defaults. '.repeat(200),
    }));
    await collect(new OpenAiGenerator(conn({ promptTokenBudget: 400 })).generate(input({ passages: long })));
    const user = fake.calls[0].body.messages![1].content;
    expect(user.length / 4).toBeLessThan(400 + 60);
  });

  it('waits as Retry-After says on 429 and retries 5xx, before the stream starts', async () => {
    fake.failNext({ status: 429, retryAfter: '1' }, 503);
    const r = await collect(new OpenAiGenerator(conn()).generate(input()));
    expect(r.answer).toContain('[4]');
    expect(fake.calls).toHaveLength(3);
    expect(fake.calls[1].at - fake.calls[0].at).toBeGreaterThanOrEqual(950);
  });

  it('gives up with DEPENDENCY_UNAVAILABLE (status only, never the key) after OPENAI_MAX_ATTEMPTS', async () => {
    fake.failNext(500, 500);
    const err = await collect(new OpenAiGenerator(conn({ maxAttempts: 2 })).generate(input())).catch(
      (e) => e,
    );
    expect(err).toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      message: 'Answer model unavailable (HTTP 500)',
    });
    expect(JSON.stringify(err)).not.toContain('sk-test-key');
    expect(fake.calls).toHaveLength(2);
  });

  it('does not retry a 400', async () => {
    fake.failNext(400);
    await expect(collect(new OpenAiGenerator(conn()).generate(input()))).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      message: 'Answer model unavailable (HTTP 400)',
    });
    expect(fake.calls).toHaveLength(1);
  });

  it('fails with DEPENDENCY_UNAVAILABLE when the stream breaks mid-answer', async () => {
    fake.breakStreamAfter = 6;
    await expect(collect(new OpenAiGenerator(conn()).generate(input()))).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
    });
  });

  it('gives up after OPENAI_TIMEOUT_MS when the server does not answer', async () => {
    fake.delayMs = 5000;
    const t0 = Date.now();
    await expect(
      collect(new OpenAiGenerator(conn({ timeoutMs: 200, maxAttempts: 1 })).generate(input())),
    ).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    expect(Date.now() - t0).toBeLessThan(4000);
  });

  it('refuses uncited text from a server that ignores the schema', async () => {
    fake.reply = () => 'The default is %j.%c.';
    await expect(collect(new OpenAiGenerator(conn()).generate(input()))).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      message: 'Answer model did not return a cited answer',
    });
  });

  it('closes the stream when the caller aborts', async () => {
    fake.streamDelayMs = 30;
    const abort = new AbortController();
    const run = (async () => {
      for await (const e of new OpenAiGenerator(conn()).generate(input({ signal: abort.signal })))
        if (e.type === 'text') abort.abort(new DOMException('gone', 'AbortError'));
    })();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    const deadline = Date.now() + 5000;
    while (fake.abortedStreams === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(fake.abortedStreams).toBe(1);
    expect(fake.finishedStreams).toBe(0);
  });

  it('rewrites follow-ups (no call without history) and titles conversations', async () => {
    const rw = new OpenAiRewriter(conn());
    expect(await rw.rewrite({ question: 'What is outputtemplate?', history: [] })).toEqual({
      query: 'What is outputtemplate?',
    });
    expect(fake.calls).toHaveLength(0);
    const r = await rw.rewrite({
      question: 'And its default?',
      history: [
        { role: 'user', content: 'What is outputtemplate?' },
        { role: 'assistant', content: 'A MetaPost variable. [1]' },
      ],
    });
    expect(r.query).toBe('And its default? (context: What is outputtemplate?)');
    expect(r.call).toMatchObject({ model: 'qwen2.5-7b-instruct' });
    const user = fake.calls[0].body.messages![1].content;
    expect(user).toContain('Assistant: A MetaPost variable.');
    expect(user).not.toContain('[1]');
    const t = await new OpenAiTitler(conn()).title({
      messages: [{ role: 'user', content: 'How do MetaPost templates work?' }],
    });
    expect(t.title).toBe('How do MetaPost templates');
  });
});
