import { ApplicationFailure } from '@temporalio/common';
import { DomainError, ErrorCode } from '@docqa/common';
import { SourceError } from '@docqa/sources';
import { DocumentRejectedError } from '../extraction/document-rejected.error';
import { RunGoneError, SourceEmptyError } from '../pipeline/pipeline-errors';

/**
 * Runs an activity body and turns permanent failures into non-retryable ApplicationFailures with a
 * readable message (the reason a document or run ends with). Anything else is rethrown as is, so
 * Temporal retries it with the activity's backoff.
 */
export async function asActivity<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toFailure(err);
  }
}

export function toFailure(err: unknown): unknown {
  if (err instanceof DocumentRejectedError || err instanceof SourceEmptyError || err instanceof RunGoneError)
    return ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
  if (err instanceof SourceError)
    return ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: !err.retryable });
  if (err instanceof DomainError && err.code === ErrorCode.DEPENDENCY_UNAVAILABLE)
    // An engine (search, database, model) down for a while: retried with the activity's backoff, so
    // a restart mid-run does not fail documents (test/faults).
    return ApplicationFailure.create({
      type: 'DependencyUnavailable',
      message: err.message,
      nonRetryable: false,
    });
  if (err instanceof DomainError)
    // Stored credentials that no longer validate (for example S3_BUCKET was unset meanwhile).
    return ApplicationFailure.create({
      type: 'InvalidCredentials',
      message: err.message,
      nonRetryable: true,
    });
  return err;
}

/** Heartbeats every `everyMs` while `work` runs (for steps without natural progress points). */
export async function whileHeartbeating<T>(
  heartbeat: () => void,
  work: Promise<T>,
  everyMs = 2000,
): Promise<T> {
  heartbeat();
  const timer = setInterval(heartbeat, everyMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
