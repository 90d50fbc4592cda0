import { Logger } from '@nestjs/common';
import { CohereError, CohereTimeoutError } from 'cohere-ai';
import { DomainError, ErrorCode } from '@docqa/common';

/** The retry policy every Cohere call shares (embed, chat, chat stream, rerank). */
export interface CohereRetryOptions {
  /** Attempts on 429/5xx/network errors (default 5). */
  maxAttempts?: number;
  /** First backoff delay; doubles each attempt with jitter (default 500 ms, capped at 20 s). */
  backoffMs?: number;
  /** Aborting stops waiting and retrying at once. */
  signal?: AbortSignal;
}

/** Whether a failed Cohere call may succeed when repeated: timeouts, 429, 5xx and network errors. */
export function isRetryableCohereError(err: unknown): boolean {
  const status = err instanceof CohereError ? err.statusCode : undefined;
  return (
    err instanceof CohereTimeoutError ||
    (err instanceof CohereError && (status === undefined || status === 429 || status >= 500)) ||
    (err instanceof TypeError && /fetch/i.test(err.message))
  );
}

export function cohereStatus(err: unknown): number | undefined {
  return err instanceof CohereError ? err.statusCode : undefined;
}

/** Whether `err` comes from an aborted request (the caller went away), never worth a retry. */
export function isAbortError(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  const e = err as { name?: string } | undefined;
  return e?.name === 'AbortError';
}

/**
 * The public error for a Cohere failure: DEPENDENCY_UNAVAILABLE with the HTTP status at most,
 * never the provider's body (which may echo the request) or the API key.
 */
export function cohereUnavailable(err: unknown, what: string): DomainError {
  if (err instanceof DomainError) return err;
  const status = cohereStatus(err);
  return new DomainError(
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    `${what} unavailable${status ? ` (HTTP ${status})` : ''}`,
  );
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Runs `call` with Cohere's retry policy: retryable failures (see isRetryableCohereError) are
 * repeated with exponential backoff and jitter up to `maxAttempts`; anything else, the last
 * failure, or an abort ends it. Failures surface as DomainError DEPENDENCY_UNAVAILABLE naming
 * `what` (an abort is rethrown as is, so the caller can tell it apart).
 */
export async function withCohereRetry<T>(
  what: string,
  log: Logger,
  call: (attempt: number) => Promise<T>,
  o: CohereRetryOptions = {},
): Promise<T> {
  const maxAttempts = o.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(attempt);
    } catch (err) {
      if (isAbortError(err, o.signal)) throw err;
      const status = cohereStatus(err);
      if (!isRetryableCohereError(err) || attempt >= maxAttempts) throw cohereUnavailable(err, what);
      const base = (o.backoffMs ?? 500) * 2 ** (attempt - 1);
      const delay = Math.min(base * (0.75 + Math.random() * 0.5), 20_000);
      log.warn(
        `${what}: attempt ${attempt} failed${status ? ` with HTTP ${status}` : ''}; retrying in ${Math.round(delay)} ms`,
      );
      await sleep(delay, o.signal);
      if (o.signal?.aborted) throw o.signal.reason ?? new DOMException('Aborted', 'AbortError');
    }
  }
}
