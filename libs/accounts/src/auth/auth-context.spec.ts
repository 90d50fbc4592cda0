import { DomainError, ErrorCode } from '@docqa/common';
import {
  assertCanWrite,
  assertDocsetsAllowed,
  assertUnrestricted,
  AuthContext,
  filterAllowedDocsets,
  FULL_SCOPE,
} from './auth-context';

const ctx = (scope: AuthContext['scope']): AuthContext => ({ userId: 1, accountId: 2, tokenId: 3, scope });

function code(fn: () => void): ErrorCode | null {
  try {
    fn();
    return null;
  } catch (e) {
    return (e as DomainError).code;
  }
}

describe('token scope helpers', () => {
  it('lets a full token do everything', () => {
    const a = ctx(FULL_SCOPE);
    expect(code(() => assertCanWrite(a))).toBeNull();
    expect(code(() => assertDocsetsAllowed(a, ['x', 'y']))).toBeNull();
    expect(code(() => assertUnrestricted(a))).toBeNull();
    expect(filterAllowedDocsets(a, ['x', 'y'])).toEqual(['x', 'y']);
  });

  it('refuses writes and management with a read-only token', () => {
    const a = ctx({ readOnly: true, docSetNames: null });
    expect(code(() => assertCanWrite(a))).toBe(ErrorCode.FORBIDDEN);
    expect(code(() => assertUnrestricted(a))).toBe(ErrorCode.FORBIDDEN);
    expect(code(() => assertDocsetsAllowed(a, ['any']))).toBeNull();
  });

  it('limits a docset-restricted token to its docsets', () => {
    const a = ctx({ readOnly: false, docSetNames: ['hr'] });
    expect(code(() => assertCanWrite(a))).toBeNull();
    expect(code(() => assertDocsetsAllowed(a, ['hr']))).toBeNull();
    expect(code(() => assertDocsetsAllowed(a, ['hr', 'finance']))).toBe(ErrorCode.FORBIDDEN);
    expect(code(() => assertUnrestricted(a))).toBe(ErrorCode.FORBIDDEN);
    expect(filterAllowedDocsets(a, ['finance', 'hr'])).toEqual(['hr']);
  });
});
