import { startTestApp, TestApp } from '../support/app';
import { FakeCohere, FakeCohereCall, startFakeCohere } from '../support/fake-cohere';
import { seedDocuments } from '../support/seed';
import { ask, ASK, chatbotAccount, createKey, postSse } from './support';

const turn = (i: number) => `turn-${String(i).padStart(2, '0')} about returns`;
const history = (n: number) =>
  Array.from({ length: n }, (_, k) => ({ role: k % 2 ? 'assistant' : 'user', content: turn(k + 1) }));

const text = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((c) => (c as { text?: string }).text ?? '').join('')
      : '';

/** Every message text of one chat request, in order. */
const texts = (call: FakeCohereCall) => (call.body.messages ?? []).map((m) => text(m.content)).join('\n');

describe('Chatbot: only the last 10 past_messages reach the models', () => {
  let cohere: FakeCohere;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    cohere = await startFakeCohere({ apiKey: 'test-cohere-key' });
    app = await startTestApp({
      embeddedSearch: true,
      env: { COHERE_API_KEY: 'test-cohere-key', COHERE_BASE_URL: cohere.url },
    });
    const a = await chatbotAccount(app, { plan: 'pro', supportEmail: 'help@shop.example.com' });
    await seedDocuments(app, a.accountId, [
      {
        docSetName: 'help',
        fileName: 'refunds.pdf',
        pages: ['Refunds are paid within 14 days of the return.'],
      },
    ]);
    ({ key } = await createKey(app, a.token));
  });
  afterAll(async () => {
    await app?.close();
    await cohere?.close();
  });

  const chats = () => cohere.calls.filter((c) => c.path === '/v2/chat');

  it.each([
    ['JSON', false],
    ['SSE', true],
  ])('%s: turns 1-4 of 14 are ignored, 5-14 are used in order', async (_name, stream) => {
    cohere.calls.length = 0;
    const body = { question: 'How long do refunds take?', past_messages: history(14), stream };
    const res = stream ? await postSse(app, ASK, body, { token: key }) : await ask(app, key, body);
    expect(res.status).toBe(200);
    if (stream) expect((res as Awaited<ReturnType<typeof postSse>>).events.at(-1)?.event).toBe('done');

    const calls = chats();
    // The rewriter (history -> standalone query) and the generator (history + documents).
    const generator = calls.find((c) => (c.body.documents ?? []).length > 0);
    const rewriter = calls.find((c) => (c.body.documents ?? []).length === 0);
    expect(generator).toBeDefined();
    expect(rewriter).toBeDefined();
    for (const call of [generator, rewriter] as FakeCohereCall[]) {
      const all = texts(call);
      for (let i = 1; i <= 4; i++) expect(all).not.toContain(turn(i));
      const positions = Array.from({ length: 10 }, (_, k) => all.indexOf(turn(k + 5)));
      expect(positions.every((p) => p >= 0)).toBe(true);
      expect([...positions].sort((x, y) => x - y)).toEqual(positions);
    }
    // The generator gets them as chat turns with their roles.
    const turns = (generator as FakeCohereCall).body.messages!.filter((m) =>
      /^turn-\d\d/.test(text(m.content)),
    );
    expect(turns.map((m) => m.role)).toEqual(
      history(14)
        .slice(4)
        .map((m) => m.role),
    );
  });

  it('uses a shorter history as it is', async () => {
    cohere.calls.length = 0;
    const res = await ask(app, key, { question: 'How long do refunds take?', past_messages: history(3) });
    expect(res.status).toBe(200);
    const generator = chats().find((c) => (c.body.documents ?? []).length > 0) as FakeCohereCall;
    for (let i = 1; i <= 3; i++) expect(texts(generator)).toContain(turn(i));
  });
});
