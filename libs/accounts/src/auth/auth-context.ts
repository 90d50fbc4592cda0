import { DomainError } from '@docqa/common';

/** What a bearer API token may do. A default or unrestricted token has `readOnly: false, docSetNames: null`. */
export interface AuthScope {
  /** Read-and-ask only: no indexing, deletion, token or account changes. */
  readOnly: boolean;
  /** Only these docsets (null: every docset of the account). */
  docSetNames: string[] | null;
}

/** The authenticated caller of an ApiTokenGuard-protected endpoint (see `@CurrentAuth()`). */
export interface AuthContext {
  userId: number;
  /** The token's account: the user's personal account. Every Document API query is scoped to it. */
  accountId: number;
  tokenId: number;
  scope: AuthScope;
}

export const FULL_SCOPE: AuthScope = Object.freeze({ readOnly: false, docSetNames: null }) as AuthScope;

export function isRestricted(scope: AuthScope): boolean {
  return scope.readOnly || scope.docSetNames !== null;
}

/** 403 unless the token may change things (index, delete, manage). */
export function assertCanWrite(auth: AuthContext): void {
  if (auth.scope.readOnly) throw DomainError.forbidden('This API token is read-only');
}

/** 403 when any of `names` lies outside the token's docset restriction. */
export function assertDocsetsAllowed(auth: AuthContext, names: readonly string[]): void {
  const allowed = auth.scope.docSetNames;
  if (allowed === null) return;
  const set = new Set(allowed);
  const outside = names.filter((n) => !set.has(n));
  if (outside.length)
    throw DomainError.forbidden('This API token is not allowed to use the requested docsets');
}

/** Whether one docset is inside the token's restriction (for filtering listings). */
export function isDocsetAllowed(auth: AuthContext, name: string): boolean {
  return auth.scope.docSetNames === null || auth.scope.docSetNames.includes(name);
}

/** Keeps the names a token may see (listings filter instead of failing). */
export function filterAllowedDocsets<T extends string>(auth: AuthContext, names: readonly T[]): T[] {
  return names.filter((n) => isDocsetAllowed(auth, n));
}

/**
 * 403 for a restricted token. Managing credentials and the account (tokens, password, two-factor,
 * deletion) needs an unrestricted token, or a narrowed token could widen itself.
 */
export function assertUnrestricted(auth: AuthContext): void {
  if (isRestricted(auth.scope)) {
    throw DomainError.forbidden(
      'This API token is restricted; account management needs an unrestricted token',
    );
  }
}
