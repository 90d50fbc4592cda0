// What the parts of a soak (soak.ts) share: the product's client, the problem list and the log.
import type { HttpResponse, TestClient } from '../support/http';
import type { Corpus } from './corpora';

export const P = '/api/v1/document_proxy';

export type Engine = 'embedded' | 'elasticsearch';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Account {
  corpus: Corpus;
  token: string;
  docSet: string;
  bucket: string;
}

export interface Soak {
  c: TestClient;
  log: (line: string) => void;
  /** Records what went wrong (the soak collects problems instead of failing at the first one). */
  problem: (p: string) => void;
  /** True once every account's operations have ended: the asks and the watch stop. */
  stopping: () => boolean;
}

/** The request's answer, or undefined (and a problem) when it got none. */
export async function call(
  s: Soak,
  what: string,
  p: Promise<HttpResponse>,
): Promise<HttpResponse | undefined> {
  try {
    return await p;
  } catch (err) {
    s.problem(`${what}: request failed (${(err as Error).message})`);
    return undefined;
  }
}

export const progressOf = async (s: Soak, a: Account) =>
  (await s.c.get(`${P}/index/progress/${a.docSet}`, { token: a.token })).body;
