import { Logger } from '@nestjs/common';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { activityMonitor, databaseUnavailable, DomainError, ErrorCode } from '@docqa/common';
import { SourceError } from '@docqa/sources';
import { DEPENDENCY_UNAVAILABLE_FAILURE, RUN_FAILURE } from '@docqa/workflow-contract';
import { DocumentRejectedError } from '../extraction/document-rejected.error';
import { RunGoneError, SourceEmptyError } from '../pipeline/pipeline-errors';

/**
 * How the failure of an attempt is mapped for Temporal: the failing attempt's number (`info.attempt`,
 * from 1) and the first wait before a step whose dependency was unavailable is tried again
 * (an eighth of SEARCH_WRITE_TIMEOUT_MS, UNAVAILABLE_RETRY_PER_WRITE).
 */
export interface FailureContext {
  attempt: number;
  unavailableRetryMs: number;
}

/**
 * Runs an activity body and turns permanent failures into non-retryable ApplicationFailures with a
 * readable message (the reason a document or run ends with). Anything else is rethrown as is, so
 * Temporal retries it with the activity's backoff.
 */
export async function asActivity<T>(unavailableRetryMs: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toFailure(err, { attempt: Context.current().info.attempt, unavailableRetryMs });
  }
}

/**
 * The longest wait before the next attempt of a step whose dependency was unavailable: the write
 * activities' `maximumInterval` doubled, so their eight attempts outlast about ten minutes of an
 * outage, and a step resumes within two minutes of the dependency answering again.
 */
export const UNAVAILABLE_RETRY_MAX_MS = 120_000;

/** The wait before attempt `attempt + 1` of a step that failed with DEPENDENCY_UNAVAILABLE. */
function unavailableRetryDelayMs(firstMs: number, attempt: number): number {
  return Math.min(firstMs * 2 ** Math.max(0, attempt - 1), UNAVAILABLE_RETRY_MAX_MS);
}

export function toFailure(err: unknown, ctx: FailureContext): unknown {
  const unavailable =
    err instanceof DomainError && err.code === ErrorCode.DEPENDENCY_UNAVAILABLE
      ? err.message
      : // the driver's own error names the address; the failure shows in the Temporal UI
        databaseUnavailable(err) && 'Database unavailable';
  if (unavailable)
    // An engine (database, search, model) down, past its deadline or not taking writes: retryable,
    // so a restart mid-run does not fail documents (test/faults). Such a failure often comes in
    // milliseconds (a refused connection; a write not tried, which frees the worker slot, issue
    // #13), and an outage lasts minutes, so the step names its own doubling wait instead of
    // spending its attempts in the retry policy's first seconds.
    return ApplicationFailure.create({
      type: DEPENDENCY_UNAVAILABLE_FAILURE,
      message: unavailable,
      nonRetryable: false,
      nextRetryDelay: unavailableRetryDelayMs(ctx.unavailableRetryMs, ctx.attempt),
    });
  if (err instanceof DocumentRejectedError || err instanceof SourceEmptyError || err instanceof RunGoneError)
    return ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
  if (err instanceof SourceError)
    return ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: !err.retryable });
  if (err instanceof DomainError)
    // Stored credentials that no longer validate (for example S3_BUCKET was unset meanwhile).
    return ApplicationFailure.create({
      type: RUN_FAILURE.INVALID_CREDENTIALS,
      message: err.message,
      nonRetryable: true,
    });
  return err;
}

/**
 * How long a cancelled activity may take to stop before its wait is abandoned. Every wait of the
 * pipeline listens to the cancellation signal, so this only bounds what does not (a download, a
 * model call that ignores it): the worker slot is released either way.
 */
export const CANCEL_GRACE_MS = 5000;

const log = new Logger('IndexingActivity');

/** What an activity body gets: the cancellation signal and progress heartbeats. */
export interface ActivityScope {
  /**
   * Aborts when Temporal cancels the activity: the workflow cancelled it, the SDK's local
   * heartbeat or start-to-close timer elapsed (reason TIMED_OUT), or the worker is shutting down.
   */
  signal: AbortSignal;
  /** Records progress (heartbeat details a retry resumes from) and heartbeats it. */
  progress(details?: unknown): void;
  /**
   * Heartbeats the last progress every 2 s while `work` runs: for waits that are bounded by their
   * own deadline (an engine call, a thread parse), so only a dead worker or a blocked event loop
   * lets the heartbeat time out.
   */
  waiting<T>(work: Promise<T>): Promise<T>;
}

/**
 * Runs an activity body with its cancellation signal (failures as in asActivity). Once cancelled,
 * the body gets CANCEL_GRACE_MS to stop; then the activity fails with the cancellation anyway, so
 * a step that does not react never keeps its worker slot (issue #13).
 */
export async function runActivity<T>(
  unavailableRetryMs: number,
  fn: (scope: ActivityScope) => Promise<T>,
): Promise<T> {
  const ctx = Context.current();
  const signal = ctx.cancellationSignal;
  let details: unknown = ctx.info.heartbeatDetails;
  const scope: ActivityScope = {
    signal,
    progress: (d?: unknown) => {
      if (d !== undefined) details = d;
      ctx.heartbeat(details);
      activityMonitor.progressed(ctx);
    },
    waiting: (work) => whileHeartbeating(() => ctx.heartbeat(details), work),
  };
  let graceTimer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const abandoned = new Promise<never>((_, reject) => {
    onAbort = () => {
      graceTimer = setTimeout(() => {
        log.warn(
          `${ctx.info.activityType} (workflow ${ctx.info.workflowExecution?.workflowId}) did not stop within ` +
            `${CANCEL_GRACE_MS} ms of its cancellation (${String(signal.reason?.message ?? signal.reason)}); ` +
            'its worker slot is released and the remaining work abandoned',
        );
        reject(signal.reason);
      }, CANCEL_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  abandoned.catch(() => undefined);
  try {
    return await Promise.race([fn(scope), abandoned]);
  } catch (err) {
    throw toFailure(err, { attempt: ctx.info.attempt, unavailableRetryMs });
  } finally {
    clearTimeout(graceTimer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
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
