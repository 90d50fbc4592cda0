import { QueryFailedError } from 'typeorm';
import { ErrorCode } from './error-codes';
import { databaseUnavailable, toDomainError } from './all-exceptions.filter';

describe('toDomainError: a database that is down or saturated is 503, never 500', () => {
  it('maps pg-pool connect timeouts, refused or dropped connections and shutdown states to DEPENDENCY_UNAVAILABLE', () => {
    const cases: unknown[] = [
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new QueryFailedError(
        'SELECT 1',
        [],
        Object.assign(new Error('terminating connection'), { code: '57P01' }),
      ),
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
    ];
    for (const c of cases) {
      const { error, errorId } = toDomainError(c);
      expect(error.code).toBe(ErrorCode.DEPENDENCY_UNAVAILABLE);
      expect(error.message).not.toMatch(/ECONN|127\.0\.0\.1|SELECT/);
      expect(errorId).toBeUndefined();
    }
  });

  it('leaves errors of a query that ran (and anything else unknown) as INTERNAL_ERROR with an id', () => {
    const unique = new QueryFailedError(
      'INSERT',
      [],
      Object.assign(new Error('duplicate key'), { code: '23505' }),
    );
    expect(databaseUnavailable(unique)).toBe(false);
    expect(toDomainError(unique).error.code).toBe(ErrorCode.INTERNAL_ERROR);
    expect(toDomainError(new Error('boom')).errorId).toEqual(expect.any(String));
    expect(databaseUnavailable(new Error('Connection terminated by a bug somewhere'))).toBe(false);
    expect(databaseUnavailable(null)).toBe(false);
  });
});
