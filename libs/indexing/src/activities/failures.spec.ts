import { ApplicationFailure } from '@temporalio/common';
import { DomainError, ErrorCode } from '@docqa/common';
import { SearchWritesBlockedError } from '@docqa/search';
import { BLOCKED_RETRY_MAX_MS, toFailure } from './failures';

describe('toFailure', () => {
  it('keeps an unavailable dependency retryable (an engine restart must not fail documents)', () => {
    const f = toFailure(new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Search engine unavailable'));
    expect(f).toBeInstanceOf(ApplicationFailure);
    expect(f).toMatchObject({ type: 'DependencyUnavailable', nonRetryable: false });
  });
  it('makes other domain errors permanent', () => {
    const f = toFailure(new DomainError(ErrorCode.VALIDATION_ERROR, 'bad'));
    expect(f).toMatchObject({ type: 'InvalidCredentials', nonRetryable: true });
  });
  it('spaces the retries of a step the engine would not take writes for, doubling to a bound', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) => {
      const f = toFailure(new SearchWritesBlockedError(15_000), attempt) as ApplicationFailure;
      expect(f).toMatchObject({ type: 'DependencyUnavailable', nonRetryable: false });
      return f.nextRetryDelay;
    });
    expect(delays).toEqual([15_000, 30_000, 60_000, 120_000, 120_000, 120_000, 120_000]);
    expect(Math.max(...(delays as number[]))).toBe(BLOCKED_RETRY_MAX_MS);
  });
  it('leaves the retry policy its own backoff for other unavailable dependencies', () => {
    const f = toFailure(new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Search engine unavailable'), 3);
    expect((f as ApplicationFailure).nextRetryDelay).toBeUndefined();
  });
});
