import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

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
  };
}

export interface FakeCohere {
  /** Base URL for COHERE_BASE_URL / the SDK's environment. */
  url: string;
  calls: FakeCohereCall[];
  /** Statuses to answer with before answering normally, consumed one per request (e.g. [429, 503]). */
  failNext(...statuses: number[]): void;
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

/**
 * A local HTTP server speaking Cohere's v2 embed wire format (POST /v2/embed ->
 * `{ id, embeddings: { float }, texts, meta: { billed_units } }`), so the real SDK runs in tests.
 * Enforces the API's 96-texts limit with a 400 like the real service.
 */
export async function startFakeCohere(o: { dimensions?: number; apiKey?: string } = {}): Promise<FakeCohere> {
  const dims = o.dimensions ?? 1024;
  const calls: FakeCohereCall[] = [];
  const failures: number[] = [];
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
      calls.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
      if (req.method !== 'POST' || req.url !== '/v2/embed') return send(404, { message: 'not found' });
      if (o.apiKey && req.headers.authorization !== `Bearer ${o.apiKey}`)
        return send(401, { message: 'invalid api token' });
      const fail = failures.shift();
      if (fail)
        return send(fail, { message: fail === 429 ? 'rate limited: too many requests' : 'server error' });
      const texts = body.texts ?? [];
      if (!body.model || !body.input_type) return send(400, { message: 'model and input_type are required' });
      if (texts.length > 96) return send(400, { message: 'too many texts: the maximum is 96' });
      const tokens = texts.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);
      send(200, {
        id: `embed-${calls.length}`,
        embeddings: { float: texts.map((t) => fakeVector(`${body.input_type}:${t}`, dims)) },
        texts,
        meta: { api_version: { version: '2' }, billed_units: { input_tokens: tokens } },
        response_type: 'embeddings_by_type',
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    failNext: (...statuses) => failures.push(...statuses),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
