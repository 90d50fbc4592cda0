import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fake received, as parsed from the wire. */
export interface FakeOpenAiCall {
  path: string;
  authorization?: string;
  at: number;
  body: {
    model?: string;
    messages?: Array<{ role: string; content: string }>;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    temperature?: number;
    max_tokens?: number;
    response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: any } };
  };
}

/** A failure to answer with before answering normally. */
export interface FakeFailure {
  status: number;
  /** Retry-After header value (seconds), when set. */
  retryAfter?: string;
}

export interface FakeOpenAi {
  /** Base URL for OPENAI_BASE_URL (ends in /v1). */
  url: string;
  calls: FakeOpenAiCall[];
  failNext(...failures: Array<number | FakeFailure>): void;
  /** Overrides the reply content (default: see `defaultReply`). */
  reply?: (body: FakeOpenAiCall['body']) => string;
  /** Delay between streamed chunks, in ms. */
  streamDelayMs: number;
  /** Pause before the response, in ms. */
  delayMs: number;
  /** Cuts the connection of the next stream after this many chunks. */
  breakStreamAfter?: number;
  /** Leaves out the usage chunk of streams (servers that ignore stream_options). */
  omitUsage: boolean;
  abortedStreams: number;
  finishedStreams: number;
  close(): Promise<void>;
}

/** The numbered passages of an answer prompt: `[k] ` then the text, blocks separated by a blank line. */
export function promptPassages(user: string): Array<{ label: number; text: string }> {
  const out: Array<{ label: number; text: string }> = [];
  const re = /^\[(\d+)\] ([\s\S]*?)(?=\n\n\[\d+\] |\n\nQuestion: |$)/gm;
  for (const m of user.matchAll(re)) out.push({ label: Number(m[1]), text: m[2] });
  return out;
}

/**
 * The default behaviour. An answer request (response_format json_schema): one sentence from each of
 * the first two passages, citing it, or no sentence when the question mentions "moon" (not found).
 * A rewrite: "Standalone question: " + the latest question + " (context: " + the first user turn + ")".
 * A title: "Title: " + the first words.
 */
export function defaultReply(body: FakeOpenAiCall['body']): string {
  const system = body.messages?.find((m) => m.role === 'system')?.content ?? '';
  const user = body.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  if (body.response_format?.type === 'json_schema') {
    const question = /\nQuestion: ([^\n]*)/.exec(user)?.[1] ?? '';
    const sentences = /moon/i.test(question)
      ? []
      : promptPassages(user)
          .slice(0, 2)
          .map((p) => ({
            passage: p.label,
            text: `${p.text.replace(/\s+/g, ' ').trim().slice(0, 70).trim()}.`,
          }));
    return JSON.stringify({ sentences }, null, 1);
  }
  if (/title/i.test(system)) {
    return `Title: ${user
      .replace(/^User:\s*/, '')
      .split(/\s+/)
      .slice(0, 4)
      .join(' ')}`;
  }
  const q = /Latest question:\s*([\s\S]*)$/.exec(user)?.[1] ?? user;
  const first = /^User: ([^\n]*)/m.exec(user)?.[1] ?? '';
  return `Standalone question: ${q.trim()} (context: ${first})`;
}

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/**
 * A local HTTP server speaking the OpenAI chat completions wire format, so the real `openai` client
 * runs in tests: POST {url}/chat/completions answers a `chat.completion` object, or with
 * `stream: true` Server-Sent Events of `chat.completion.chunk` objects (content in small pieces,
 * a final chunk with `finish_reason`, a usage chunk when `stream_options.include_usage`, then
 * `data: [DONE]`). Errors use OpenAI's `{ error: { message, type, code } }` body; 429/503 can carry
 * Retry-After.
 */
export async function startFakeOpenAi(o: { apiKey?: string } = {}): Promise<FakeOpenAi> {
  const failures: FakeFailure[] = [];
  const sockets = new Set<import('node:net').Socket>();
  // Delays are cleared on close: a slow response a test stopped waiting for (a client timeout)
  // must not keep the test process alive.
  const timers = new Set<NodeJS.Timeout>();
  const sleep = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(() => {
        timers.delete(t);
        r();
      }, ms);
      timers.add(t);
    });
  const fake: FakeOpenAi = {
    url: '',
    calls: [],
    failNext: (...f) => failures.push(...f.map((x) => (typeof x === 'number' ? { status: x } : x))),
    streamDelayMs: 0,
    delayMs: 0,
    omitUsage: false,
    abortedStreams: 0,
    finishedStreams: 0,
    close: async () => undefined,
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      const error = (status: number, message: string, headers: Record<string, string> = {}) =>
        send(status, { error: { message, type: 'server_error', code: String(status) } }, headers);
      let body: FakeOpenAiCall['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return error(400, 'invalid json');
      }
      fake.calls.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body,
        at: Date.now(),
      });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return error(404, 'not found');
      if (o.apiKey && req.headers.authorization !== `Bearer ${o.apiKey}`)
        return error(401, 'invalid api key');
      const fail = failures.shift();
      if (fail) {
        const headers: Record<string, string> = fail.retryAfter ? { 'retry-after': fail.retryAfter } : {};
        return error(fail.status, fail.status === 429 ? 'rate limited' : 'upstream error', headers);
      }
      if (!body.model || !Array.isArray(body.messages)) return error(400, 'model and messages are required');
      void answer(body, res, send);
    });
  });

  async function answer(
    body: FakeOpenAiCall['body'],
    res: http.ServerResponse,
    send: (s: number, b: unknown) => void,
  ) {
    const content = (fake.reply ?? defaultReply)(body);
    const usage = {
      prompt_tokens: (body.messages ?? []).reduce((n, m) => n + words(String(m.content)), 0),
      completion_tokens: words(content),
      total_tokens: 0,
    };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    const id = `chatcmpl-${fake.calls.length}`;
    const created = Math.floor(Date.now() / 1000);
    if (fake.delayMs) await sleep(fake.delayMs);
    if (!body.stream) {
      return send(200, {
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [
          { index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null },
        ],
        usage,
      });
    }
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
    const events: unknown[] = [chunk({ role: 'assistant', content: '' }, null)];
    for (let at = 0; at < content.length; at += 5)
      events.push(chunk({ content: content.slice(at, at + 5) }, null));
    events.push(chunk({}, 'stop'));
    if (body.stream_options?.include_usage && !fake.omitUsage)
      events.push({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage });

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const breakAfter = fake.breakStreamAfter;
    fake.breakStreamAfter = undefined;
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    for (let i = 0; i < events.length; i++) {
      if (closed) {
        fake.abortedStreams++;
        return;
      }
      if (breakAfter !== undefined && i >= breakAfter) {
        await sleep(50);
        res.socket?.destroy();
        return;
      }
      res.write(`data: ${JSON.stringify(events[i])}\n\n`);
      if (fake.streamDelayMs) await sleep(fake.streamDelayMs);
    }
    if (closed) {
      fake.abortedStreams++;
      return;
    }
    res.end('data: [DONE]\n\n');
    fake.finishedStreams++;
  }

  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}/v1`;
  fake.close = () =>
    new Promise<void>((r) => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return fake;
}
