import { errors as esErrors } from '@elastic/elasticsearch';
import type { Logger } from '@nestjs/common';
import { DeadlineExceededError, DomainError, ErrorCode, withDeadline } from '@docqa/common';
import { PartialIndexingError, searchTimedOut } from './search.errors';

/**
 * The Elasticsearch adapter's client wrapper: every engine call bounded by a deadline, and the
 * client's errors normalised to domain errors (no request or response payload in a message).
 */

/** Connection failures become DEPENDENCY_UNAVAILABLE; the rest keep their type, minus payloads. */
export function normaliseError(err: unknown): unknown {
  if (err instanceof PartialIndexingError || err instanceof DomainError || err instanceof RangeError)
    return err;
  if (
    err instanceof esErrors.ConnectionError ||
    err instanceof esErrors.TimeoutError ||
    err instanceof esErrors.NoLivingConnectionsError
  ) {
    return new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Search engine unavailable');
  }
  if (err instanceof esErrors.ResponseError) {
    const type = (err.body as { error?: { type?: string; reason?: string } })?.error;
    return new Error(
      `Elasticsearch ${err.statusCode}: ${type?.type ?? 'error'} ${type?.reason ?? ''}`.trim(),
    );
  }
  return err;
}

/** Why the bulk helper dropped a document, short (the item's error type and reason). */
export function dropReason(error: unknown): string {
  const e = error as { type?: string; reason?: string } | null;
  return e?.type ? `${e.type}: ${e.reason ?? ''}`.slice(0, 500) : 'rejected by Elasticsearch';
}

/** The create of an index (or template) another process made first. */
export function alreadyExists(err: unknown): boolean {
  return (
    err instanceof esErrors.ResponseError && err.body?.error?.type === 'resource_already_exists_exception'
  );
}

/** A request about something that does not exist (an alias no index has). */
export function notFound(err: unknown): boolean {
  return err instanceof esErrors.ResponseError && err.statusCode === 404;
}

/**
 * One engine call bounded by `ms`: its requests carry an AbortSignal that fires at the deadline or
 * when the caller's signal aborts. A missed deadline is DEPENDENCY_UNAVAILABLE (logged with what
 * it was); a cancelled caller gets its signal's reason; other errors are normalised.
 */
export async function boundedCall<T>(
  log: Logger,
  what: string,
  ms: number,
  fn: (signal: AbortSignal) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const ac = new AbortController();
  const deadline = new DeadlineExceededError(`elasticsearch ${what}`, ms);
  const timer = setTimeout(() => ac.abort(deadline), ms);
  const onAbort = () => ac.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    // The race answers at the deadline even if a client call ignores its signal.
    return await withDeadline(fn(ac.signal), ms, `elasticsearch ${what}`, ac.signal);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (ac.signal.aborted || err instanceof DeadlineExceededError) {
      log.warn(`Elasticsearch did not answer: ${deadline.message}`);
      throw searchTimedOut();
    }
    throw normaliseError(err);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
