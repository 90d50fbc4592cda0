import { createParser, EventSourceMessage } from 'eventsource-parser';
import { request } from 'undici';
import { ChatbotClock } from '@docqa/chatbot';
import type { TestApp } from '../support/app';
import { tlsAgent, type HttpResponse } from '../support/http';
import { dbOf, newAccount } from '../indexing/support';

export const ASK = '/api/v1/chatbot/ask_question';
export const SUPPORT = '/api/v1/support_emails';
export const KEYS = '/api/v1/chatbot/keys';
export const SETTINGS = '/api/v1/chatbot/settings';

export interface ChatbotAccount {
  token: string;
  accountId: number;
  userId: number;
}

/** Sets an account's plan directly in the database (the CLI itself is tested in keys.e2e-spec). */
export async function setPlan(app: TestApp, accountId: number, plan: 'free' | 'pro' | 'business') {
  const db = await dbOf(app);
  try {
    await db.query('UPDATE accounts SET plan = $2 WHERE id = $1', [accountId, plan]);
  } finally {
    await db.end();
  }
}

/** A fresh user + personal account on `plan`, with optional chatbot settings. */
export async function chatbotAccount(
  app: TestApp,
  o: { plan?: 'free' | 'pro' | 'business'; supportEmail?: string; docsetNames?: string[] } = {},
): Promise<ChatbotAccount> {
  const a = await newAccount(app);
  await setPlan(app, a.accountId, o.plan ?? 'pro');
  if (o.supportEmail !== undefined || o.docsetNames !== undefined) {
    const res = await app.client.patch(
      SETTINGS,
      {
        ...(o.supportEmail !== undefined ? { support_email: o.supportEmail } : {}),
        ...(o.docsetNames !== undefined ? { docset_names: o.docsetNames } : {}),
      },
      { token: a.token },
    );
    if (res.status !== 200) throw new Error(`PATCH settings: ${res.status} ${res.text}`);
  }
  return a;
}

/** Creates a `cb_` key; returns its id and the full key. */
export async function createKey(
  app: TestApp,
  token: string,
  body: { name?: string; allowed_origin?: string | null } = {},
): Promise<{ id: number; key: string }> {
  const res = await app.client.post(KEYS, body, { token });
  if (res.status !== 200) throw new Error(`POST keys: ${res.status} ${res.text}`);
  return { id: res.body.id, key: res.body.key };
}

export function ask(
  app: TestApp,
  key: string | undefined,
  body: Record<string, unknown> = { question: 'hello' },
  headers: Record<string, string> = {},
): Promise<HttpResponse> {
  return app.client.post(ASK, body, { token: key, headers });
}

/** The running app's chatbot clock (rate-limit windows and link expiry). */
export function clockOf(app: TestApp): ChatbotClock {
  return app.api.app.get(ChatbotClock, { strict: false });
}

export interface SseResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: Array<{ event: string; data: any }>;
  /** Time of each event, relative to the request. */
  times: number[];
}

/** Posts and reads a Server-Sent Events response to its end (a JSON error body is returned as `text`). */
export async function postSse(
  app: TestApp,
  path: string,
  body: unknown,
  o: { token?: string; headers?: Record<string, string> } = {},
): Promise<SseResult & { text: string }> {
  const agent = tlsAgent(app.client.baseUrl, app.api.tls.caFile);
  const t0 = Date.now();
  try {
    const res = await request(app.client.baseUrl + path, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
        ...(o.headers ?? {}),
      },
      body: JSON.stringify(body),
    });
    const events: SseResult['events'] = [];
    const times: number[] = [];
    let text = '';
    const parser = createParser({
      onEvent: (m: EventSourceMessage) => {
        events.push({ event: m.event ?? 'message', data: JSON.parse(m.data) });
        times.push(Date.now() - t0);
      },
    });
    const isSse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
    for await (const chunk of res.body) {
      const s = Buffer.from(chunk as Buffer).toString('utf8');
      if (isSse) parser.feed(s);
      else text += s;
    }
    return { status: res.statusCode, headers: res.headers, events, times, text };
  } finally {
    await agent.close();
  }
}

export { eventually, sleep } from '../support/wait';
