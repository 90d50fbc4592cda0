import { ApplicationFailure } from '@temporalio/common';
import { DomainError, ErrorCode } from '@docqa/common';
import { searchWritesBlocked, searchTimedOut } from '@docqa/search';
import { SourceError } from '@docqa/sources';
import { toFailure, UNAVAILABLE_RETRY_MAX_MS } from './failures';

const at = (attempt: number) => ({ attempt, unavailableRetryMs: 15_000 });

describe('toFailure', () => {
  it('keeps an unavailable dependency retryable (an engine restart must not fail documents)', () => {
    const f = toFailure(
      new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Search engine unavailable'),
      at(1),
    );
    expect(f).toBeInstanceOf(ApplicationFailure);
    expect(f).toMatchObject({ type: 'DependencyUnavailable', nonRetryable: false });
  });
  it('makes other domain errors permanent', () => {
    const f = toFailure(new DomainError(ErrorCode.VALIDATION_ERROR, 'bad'), at(1));
    expect(f).toMatchObject({ type: 'InvalidCredentials', nonRetryable: true });
  });
  it.each([
    ['a refused connection', new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Search engine unavailable')],
    ['a missed deadline', searchTimedOut()],
    ['an engine not taking writes', searchWritesBlocked()],
    ['a database shutting down', Object.assign(new Error('terminating connection'), { code: '57P01' })],
    [
      'a database refusing connections',
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' }),
    ],
  ])('spaces the retries of a step whose dependency was unavailable (%s), doubling to a bound', (_, err) => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) => {
      const f = toFailure(err, at(attempt)) as ApplicationFailure;
      expect(f).toMatchObject({ type: 'DependencyUnavailable', nonRetryable: false });
      return f.nextRetryDelay;
    });
    expect(delays).toEqual([15_000, 30_000, 60_000, 120_000, 120_000, 120_000, 120_000]);
    expect(Math.max(...(delays as number[]))).toBe(UNAVAILABLE_RETRY_MAX_MS);
  });
  it("names a database that is down without the driver's message (it holds the address)", () => {
    const err = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });
    const f = toFailure(err, at(1)) as ApplicationFailure;
    expect(f.message).toBe('Database unavailable');
  });
  it('leaves the retry policy its own backoff for other retryable failures', () => {
    const source = toFailure(new SourceError('UNAVAILABLE', 'S3 answered 503'), at(3)) as ApplicationFailure;
    expect(source).toMatchObject({ nonRetryable: false });
    expect(source.nextRetryDelay).toBeUndefined();
    const unknown = new Error('socket hang up');
    expect(toFailure(unknown, at(3))).toBe(unknown);
    // a query that ran and failed is no outage
    const constraint = Object.assign(new Error('duplicate key value'), { code: '23505' });
    expect(toFailure(constraint, at(3))).toBe(constraint);
  });
});
