import { createParser, EventSourceMessage } from 'eventsource-parser';
import * as fs from 'node:fs';
import { Agent, request } from 'undici';
import type { TestApp } from './app';

export interface SseEvent {
  event?: string;
  id?: string;
  data: any;
  /** ms since the request was sent. */
  at: number;
}

export interface SseResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: SseEvent[];
  /** Comments (keep-alives), in arrival order, with their arrival time. */
  comments: Array<{ text: string; at: number }>;
  /** ms from the request to the first event (undefined without events). */
  firstEventMs?: number;
  /** The body when the response is not an event stream (a JSON error). */
  text?: string;
  /** True when the stream ended by the server (not cut by `stopAfter`). */
  ended: boolean;
}

export interface SseOptions {
  token?: string;
  headers?: Record<string, string>;
  /** Closes the connection after this many events (a client that goes away). */
  stopAfter?: number;
  timeoutMs?: number;
}

/**
 * POSTs and reads the response as Server-Sent Events with a real SSE parser (eventsource-parser),
 * over HTTPS verified against the app's CA.
 */
export async function postSse(
  app: TestApp,
  path: string,
  body: unknown,
  o: SseOptions = {},
): Promise<SseResult> {
  const agent = new Agent({ connect: { ca: fs.readFileSync(app.api.tls.caFile) } });
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error('SSE read timed out')), o.timeoutMs ?? 60_000);
  const t0 = Date.now();
  try {
    const res = await request(`https://localhost:${app.api.httpsPort}${path}`, {
      method: 'POST',
      dispatcher: agent,
      signal: abort.signal,
      headers: {
        'content-type': 'application/json',
        ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
        ...(o.headers ?? {}),
      },
      body: JSON.stringify(body),
    });
    const result: SseResult = {
      status: res.statusCode,
      headers: res.headers,
      events: [],
      comments: [],
      ended: false,
    };
    if (!String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
      result.text = await res.body.text();
      result.ended = true;
      return result;
    }
    let stop = false;
    const parser = createParser({
      onEvent(e: EventSourceMessage) {
        const at = Date.now() - t0;
        result.firstEventMs ??= at;
        result.events.push({ event: e.event, id: e.id, data: JSON.parse(e.data), at });
        if (o.stopAfter !== undefined && result.events.length >= o.stopAfter) stop = true;
      },
      onComment(text: string) {
        result.comments.push({ text, at: Date.now() - t0 });
      },
    });
    for await (const chunk of res.body) {
      parser.feed(chunk.toString('utf8'));
      if (stop) {
        res.body.destroy();
        return result;
      }
    }
    result.ended = true;
    return result;
  } finally {
    clearTimeout(timer);
    await agent.destroy();
  }
}
