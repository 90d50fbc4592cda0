import { ApplicationFailure } from '@temporalio/common';
import { DomainError, ErrorCode } from '@docqa/common';
import { toFailure } from './failures';

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
});
