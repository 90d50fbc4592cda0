import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A document of a chat request, as sent on the wire. */
export interface FakeChatDocument {
  id?: string;
  data?: Record<string, unknown>;
}

/** A request the fake received, as parsed from the wire (snake_case, like Cohere's API). */
export interface FakeCohereCall {
  path: string;
  authorization?: string;
  body: {
    model?: string;
    texts?: string[];
    input_type?: string;
    embedding_types?: string[];
    truncate?: string;
    // chat
    messages?: Array<{ role: string; content: unknown }>;
    documents?: Array<FakeChatDocument | string>;
    stream?: boolean;
    temperature?: number;
    max_tokens?: number;
    // rerank
    query?: string;
    top_n?: number;
  };
}

/** A cited span of a fake chat answer: `[start, end)` of the text, with its source document ids. */
export interface FakeCitation {
  start: number;
  end: number;
  sources: string[];
}

/** What the fake answers to one chat request. */
export interface FakeChatReply {
  text: string;
  citations?: FakeCitation[];
}

export interface FakeCohere {
  /** Base URL for COHERE_BASE_URL / the SDK's environment. */
  url: string;
  calls: FakeCohereCall[];
  /** Statuses to answer with before answering normally, consumed one per request (e.g. [429, 503]). */
  failNext(...statuses: number[]): void;
  /** Overrides the chat reply (default: see `defaultChatReply`). */
  chatReply?: (body: FakeCohereCall['body']) => FakeChatReply;
  /** Delay between streamed chat events, in ms (default 0). */
  streamDelayMs: number;
  /** Pause before the first byte of a chat response, in ms (default 0). */
  chatDelayMs: number;
  /** Cuts the connection of the next chat stream after this many events (a failure mid-stream). */
  breakStreamAfter?: number;
  /** Chat streams the client closed before the fake had sent every event. */
  abortedStreams: number;
  /** Chat streams the fake sent completely. */
  finishedStreams: number;
  close(): Promise<void>;
}

/** Deterministic unit vector per (text, input type), so tests can compare documents and queries. */
export function fakeVector(text: string, dims: number): number[] {
  const out: number[] = [];
  let block = 0;
  while (out.length < dims) {
    const h = createHash('sha256').update(`${block++}:${text}`).digest();
    for (let i = 0; i + 1 < h.length && out.length < dims; i += 2) out.push(h.readInt16BE(i) / 32768);
  }
  const norm = Math.sqrt(out.reduce((s, x) => s + x * x, 0)) || 1;
  return out.map((x) => x / norm);
}

const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (c as { text?: string }).text ?? '').join('');
  return '';
}

function docText(d: FakeChatDocument | string): string {
  if (typeof d === 'string') return d;
  const data = d.data ?? {};
  return String(data.snippet ?? data.text ?? data.content ?? '');
}

/**
 * The default chat behaviour. With documents (an answer): one sentence per document (at most two),
 * each a cited span whose source is that document. Without documents: a rewrite (the latest
 * question, echoed) or a title ("Title: " + the first words of the first user turn).
 */
export function defaultChatReply(body: FakeCohereCall['body']): FakeChatReply {
  const docs = body.documents ?? [];
  const last = contentText(body.messages?.[body.messages.length - 1]?.content);
  if (docs.length > 0) {
    let text = 'From the documents:';
    const citations: FakeCitation[] = [];
    docs.slice(0, 2).forEach((d, i) => {
      const sentence = docText(d).replace(/\s+/g, ' ').trim().slice(0, 80).trim() || 'nothing';
      text += ' ';
      const start = text.length;
      text += sentence;
      citations.push({
        start,
        end: text.length,
        sources: [typeof d === 'string' ? `doc:${i}` : (d.id ?? `doc:${i}`)],
      });
      text += '.';
    });
    return { text, citations };
  }
  const system = contentText(body.messages?.find((m) => m.role === 'system')?.content);
  if (/title/i.test(system)) {
    const firstWords = last
      .replace(/^User:\s*/, '')
      .split(/\s+/)
      .slice(0, 4)
      .join(' ');
    return { text: `Title: ${firstWords}` };
  }
  const q = /Latest question:\s*([\s\S]*)$/.exec(last)?.[1] ?? last;
  return { text: `${q.trim()} (standalone)` };
}

function citationJson(c: FakeCitation, text: string, docs: Array<FakeChatDocument | string>) {
  return {
    start: c.start,
    end: c.end,
    text: text.slice(c.start, c.end),
    sources: c.sources.map((id) => {
      const doc = docs.find((d) => typeof d !== 'string' && d.id === id);
      return {
        type: 'document',
        id,
        document: typeof doc === 'object' ? { id, ...(doc.data ?? {}) } : { id },
      };
    }),
    type: 'TEXT_CONTENT',
  };
}

/**
 * A local HTTP server speaking Cohere's v2 wire formats, so the real SDK runs in tests:
 * - POST /v2/embed -> `{ id, embeddings: { float }, texts, meta: { billed_units } }`; the API's
 *   96-texts limit is enforced with a 400 like the real service.
 * - POST /v2/chat -> `{ id, finish_reason, message: { role, content: [{ type: 'text', text }],
 *   citations: [{ start, end, text, sources: [{ type: 'document', id, document }], type }] },
 *   usage: { billed_units, tokens } }`; with `stream: true`, Server-Sent Events `message-start`,
 *   `content-start`, `content-delta`..., `citation-start`/`citation-end` after each cited span,
 *   `content-end`, `message-end` (finish_reason and usage), each `event: <type>` + `data: <json>`.
 * - POST /v2/rerank -> `{ id, results: [{ index, relevance_score }], meta: { billed_units } }`,
 *   scored by the share of query words a document contains.
 */
export async function startFakeCohere(o: { dimensions?: number; apiKey?: string } = {}): Promise<FakeCohere> {
  const dims = o.dimensions ?? 1024;
  const failures: number[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeCohere = {
    url: '',
    calls: [],
    failNext: (...statuses) => failures.push(...statuses),
    streamDelayMs: 0,
    chatDelayMs: 0,
    abortedStreams: 0,
    finishedStreams: 0,
    close: async () => undefined,
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      let body: FakeCohereCall['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return send(400, { message: 'invalid json' });
      }
      fake.calls.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
      const known = ['/v2/embed', '/v2/chat', '/v2/rerank'];
      if (req.method !== 'POST' || !known.includes(req.url ?? '')) return send(404, { message: 'not found' });
      if (o.apiKey && req.headers.authorization !== `Bearer ${o.apiKey}`)
        return send(401, { message: 'invalid api token' });
      const fail = failures.shift();
      if (fail)
        return send(fail, { message: fail === 429 ? 'rate limited: too many requests' : 'server error' });
      if (req.url === '/v2/embed') return embed(body, send);
      if (req.url === '/v2/rerank') return rerank(body, send);
      void chat(body, res, send);
    });
  });

  function embed(body: FakeCohereCall['body'], send: (s: number, b: unknown) => void) {
    const texts = body.texts ?? [];
    if (!body.model || !body.input_type) return send(400, { message: 'model and input_type are required' });
    if (texts.length > 96) return send(400, { message: 'too many texts: the maximum is 96' });
    const tokens = texts.reduce((n, t) => n + wordCount(t), 0);
    send(200, {
      id: `embed-${fake.calls.length}`,
      embeddings: { float: texts.map((t) => fakeVector(`${body.input_type}:${t}`, dims)) },
      texts,
      meta: { api_version: { version: '2' }, billed_units: { input_tokens: tokens } },
      response_type: 'embeddings_by_type',
    });
  }

  function rerank(body: FakeCohereCall['body'], send: (s: number, b: unknown) => void) {
    const docs = (body.documents ?? []).map((d) => docText(d as FakeChatDocument | string));
    if (!body.model || !body.query) return send(400, { message: 'model and query are required' });
    const q = new Set(body.query.toLowerCase().match(/[a-z0-9]+/g) ?? []);
    const scored = docs.map((d, index) => {
      const words = new Set(d.toLowerCase().match(/[a-z0-9]+/g) ?? []);
      const hit = [...q].filter((w) => words.has(w)).length;
      return { index, relevance_score: q.size ? hit / q.size : 0 };
    });
    scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
    send(200, {
      id: `rerank-${fake.calls.length}`,
      results: scored.slice(0, body.top_n ?? scored.length),
      meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
    });
  }

  async function chat(
    body: FakeCohereCall['body'],
    res: http.ServerResponse,
    send: (s: number, b: unknown) => void,
  ) {
    if (!body.model || !Array.isArray(body.messages))
      return send(400, { message: 'model and messages are required' });
    const reply = (fake.chatReply ?? defaultChatReply)(body);
    const docs = body.documents ?? [];
    const inputTokens =
      body.messages.reduce((n, m) => n + wordCount(contentText(m.content)), 0) +
      docs.reduce((n, d) => n + wordCount(docText(d)), 0);
    const usage = {
      billed_units: { input_tokens: inputTokens, output_tokens: wordCount(reply.text) },
      tokens: { input_tokens: inputTokens + 50, output_tokens: wordCount(reply.text) + 2 },
    };
    if (fake.chatDelayMs) await sleep(fake.chatDelayMs);
    const citations = (reply.citations ?? []).map((c) => citationJson(c, reply.text, docs));
    if (!body.stream) {
      return send(200, {
        id: `chat-${fake.calls.length}`,
        finish_reason: 'COMPLETE',
        message: { role: 'assistant', content: [{ type: 'text', text: reply.text }], citations },
        usage,
      });
    }
    // Stream: text in pieces of a few characters; each citation right after its span's last piece.
    const events: Array<Record<string, unknown>> = [
      {
        type: 'message-start',
        id: `chat-${fake.calls.length}`,
        delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } },
      },
      { type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } },
    ];
    const pending = [...citations].sort((a, b) => a.end - b.end);
    let citationIndex = 0;
    for (let at = 0; at < reply.text.length;) {
      const next = Math.min(reply.text.length, at + 7);
      events.push({
        type: 'content-delta',
        index: 0,
        delta: { message: { content: { text: reply.text.slice(at, next) } } },
      });
      at = next;
      while (pending.length && pending[0].end <= at) {
        const c = pending.shift();
        events.push({ type: 'citation-start', index: citationIndex, delta: { message: { citations: c } } });
        events.push({ type: 'citation-end', index: citationIndex++ });
      }
    }
    events.push({ type: 'content-end', index: 0 });
    events.push({ type: 'message-end', delta: { finish_reason: 'COMPLETE', usage } });

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
        await sleep(50); // let the events already written reach the client first
        res.socket?.destroy();
        return;
      }
      res.write(`event: ${events[i].type}\ndata: ${JSON.stringify(events[i])}\n\n`);
      if (fake.streamDelayMs) await sleep(fake.streamDelayMs);
    }
    if (closed) {
      fake.abortedStreams++;
      return;
    }
    res.end();
    fake.finishedStreams++;
  }

  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return fake;
}
