import * as fs from 'node:fs';
import { Agent, buildConnector, request as undiciRequest } from 'undici';

/**
 * An HTTPS agent that verifies the server against `caFile` under the name of `baseUrl`'s host,
 * whatever Host header a request sends (undici would otherwise verify against the Host header,
 * and tests send forged ones on purpose).
 */
export function tlsAgent(baseUrl: string, caFile: string): Agent {
  const connector = buildConnector({ ca: fs.readFileSync(caFile) });
  const servername = new URL(baseUrl).hostname;
  return new Agent({ connect: (opts, cb) => connector({ ...opts, servername }, cb) });
}

export interface HttpResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string | Buffer;
  token?: string;
  headers?: Record<string, string>;
}

/**
 * HTTPS client for tests that verifies the server against the service's own CA file (TLS
 * verification stays on).
 */
export class TestClient {
  private readonly agent: Agent;

  constructor(
    readonly baseUrl: string,
    caFile: string,
  ) {
    this.agent = tlsAgent(baseUrl, caFile);
  }

  async request<T = any>(method: string, path: string, o: RequestOptions = {}): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    let body: string | Buffer | undefined;
    if (o.rawBody !== undefined) body = o.rawBody;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const res = await undiciRequest(this.baseUrl + path, {
      method: method as never,
      headers,
      body,
      dispatcher: this.agent,
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    if (String(res.headers['content-type'] ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.statusCode, headers: res.headers, text, body: parsed as T };
  }

  get<T = any>(path: string, o?: RequestOptions) {
    return this.request<T>('GET', path, o);
  }
  post<T = any>(path: string, body?: unknown, o: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...o, body });
  }
  patch<T = any>(path: string, body?: unknown, o: RequestOptions = {}) {
    return this.request<T>('PATCH', path, { ...o, body });
  }
  delete<T = any>(path: string, body?: unknown, o: RequestOptions = {}) {
    return this.request<T>('DELETE', path, { ...o, body });
  }

  async close() {
    await this.agent.close();
  }
}
