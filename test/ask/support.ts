import { register } from '../accounts/support';
import type { TestApp } from '../support/app';
import { accountIdOfToken, searchIndexOf } from '../support/seed';
import { SearchQuery } from '@docqa/search';

export const ASK = '/api/v1/document_proxy/ask';
export const SUMMARY = '/api/v1/document_proxy/summary';

/** Spec Citation shape plus our sourceMetadata extensions. */
export const CITATION_SHAPE = {
  index: expect.any(Number),
  fileName: expect.any(String),
  pageNumber: expect.stringMatching(/^\d+$/),
  sourceType: expect.stringMatching(/^(S3|SHAREPOINT|GOOGLEDRIVE)$/),
  sourceMetadata: expect.objectContaining({ sourceId: expect.any(String) }),
};

export interface Caller {
  token: string;
  tokenId: number;
  accountId: number;
}

export async function newCaller(app: TestApp): Promise<Caller> {
  const u = await register(app);
  return { token: u.token, tokenId: u.tokenId, accountId: await accountIdOfToken(app, u.tokenId) };
}

/** A token of `caller` limited to `docSetNames`. */
export async function restrictedToken(app: TestApp, caller: Caller, docSetNames: string[]): Promise<string> {
  const res = await app.client.post(
    '/api/v1/api_tokens',
    { name: 'restricted', docset_names: docSetNames },
    { token: caller.token },
  );
  if (res.status !== 200) throw new Error(`create token: ${res.status} ${res.text}`);
  return res.body.token as string;
}

/** Records every query the app's SearchIndex runs (the real adapter still answers). */
export function spySearches(app: TestApp): { queries: SearchQuery[]; restore(): void } {
  const index = searchIndexOf(app);
  const queries: SearchQuery[] = [];
  const original = index.search.bind(index);
  const spy = jest.spyOn(index, 'search').mockImplementation(async (q: SearchQuery) => {
    queries.push(q);
    return original(q);
  });
  return { queries, restore: () => spy.mockRestore() };
}

/** Every `[n]` of the answer names a citation, and citations are 1..k in order of first use. */
export function expectMarkersResolve(answer: string, citations: Array<{ index: number }>): void {
  const used = [...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
  const indexes = citations.map((c) => c.index);
  for (const n of used) expect(indexes).toContain(n);
  expect(indexes).toEqual(indexes.map((_, i) => i + 1));
  const firstUse = [...new Set(used)];
  expect(firstUse).toEqual(indexes.filter((i) => firstUse.includes(i)));
  expect(new Set(used)).toEqual(new Set(indexes));
}

/** Lower-cased, whitespace-collapsed, typographic quotes to ASCII: for phrase checks. */
export function norm(s: string): string {
  return s
    .normalize('NFKC')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

export const SEARCH = '/api/v1/document_proxy/search';

/** Every read the app's SearchIndex makes (the real adapter still answers), by method. */
export function spyEngineReads(app: TestApp): { reads: string[]; restore(): void } {
  const index = searchIndexOf(app);
  const reads: string[] = [];
  const spies = (['search', 'chunksAndTerms'] as const).map((m) => {
    const original = (index[m] as (...a: unknown[]) => Promise<unknown>).bind(index);
    return jest.spyOn(index, m).mockImplementation((async (...a: unknown[]) => {
      reads.push(m);
      return original(...a);
    }) as never);
  });
  return { reads, restore: () => spies.forEach((s) => s.mockRestore()) };
}
