import { Logger } from '@nestjs/common';
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { DomainError, ErrorCode } from '@docqa/common';

/** How to reach an OpenAI-compatible chat completions API. */
export interface OpenAiConnection {
  /** OPENAI_BASE_URL; unset: api.openai.com. */
  baseUrl?: string;
  /** OPENAI_API_KEY; servers without keys get a placeholder. */
  apiKey?: string;
  /** OPENAI_MODEL. */
  model: string;
  /** OPENAI_TIMEOUT_MS: one request (a stream: until its last byte). */
  timeoutMs?: number;
  /** OPENAI_MAX_ATTEMPTS (default 4). */
  maxAttempts?: number;
}

const log = new Logger('OpenAiClient');

/**
 * The official `openai` client. Its own retry policy is the one used: 408/409/429/5xx and network
 * errors are retried (maxAttempts - 1 times) with the wait the server asks for in Retry-After /
 * retry-after-ms (up to 60 s), else exponential backoff with jitter; a stream is retried only
 * before its body starts. Retries are logged as warnings (status only, never the body or the key).
 */
export function createOpenAiClient(c: OpenAiConnection): OpenAI {
  const fn = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string) => {
    if (level === 'debug') return;
    if (/retrying/i.test(message))
      log.warn(`OpenAI-compatible server: ${message.replace(/\s+/g, ' ').slice(0, 200)}`);
  };
  return new OpenAI({
    apiKey: c.apiKey || 'no-key',
    baseURL: c.baseUrl ?? 'https://api.openai.com/v1',
    timeout: c.timeoutMs ?? 60_000,
    maxRetries: Math.max(0, (c.maxAttempts ?? 4) - 1),
    logLevel: 'info',
    logger: { debug: fn('debug'), info: fn('info'), warn: fn('warn'), error: fn('error') },
  });
}

/** Whether `err` means the caller went away (never worth reporting). */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  return (
    !!signal?.aborted || err instanceof APIUserAbortError || (err as { name?: string })?.name === 'AbortError'
  );
}

/**
 * The public error for a failed call: DEPENDENCY_UNAVAILABLE naming `what` with the HTTP status at
 * most; the provider's body (which may echo the request) and the key never reach the caller.
 */
export function openAiUnavailable(err: unknown, what: string): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof APIConnectionTimeoutError) {
    return new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, `${what} timed out`);
  }
  const status = err instanceof APIError ? err.status : undefined;
  log.warn(`${what} failed: ${(err as Error)?.name ?? 'error'}${status ? ` (HTTP ${status})` : ''}`);
  return new DomainError(
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    `${what} unavailable${status ? ` (HTTP ${status})` : ''}`,
  );
}

/** Runs one call, turning its failure into openAiUnavailable (an abort is rethrown as is). */
export async function callOpenAi<T>(
  what: string,
  signal: AbortSignal | undefined,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (isAbort(err, signal)) throw signal?.reason ?? err;
    throw openAiUnavailable(err, what);
  }
}
