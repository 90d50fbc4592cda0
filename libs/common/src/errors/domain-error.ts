import { ErrorCode, statusOf } from './error-codes';

/**
 * A failure the caller can act on. Services throw it; each surface's filter renders it in that
 * surface's error body. `context` carries extra public fields (for example `field`, `limit`,
 * `reset_at`); `fieldErrors` carries per-field validation messages.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly context: Record<string, unknown> = {},
    readonly fieldErrors?: Record<string, string[]>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return statusOf(this.code);
  }

  static validation(field: string, message: string): DomainError {
    return new DomainError(ErrorCode.VALIDATION_ERROR, message, { field }, { [field]: [message] });
  }

  static notFound(message = 'Not found'): DomainError {
    return new DomainError(ErrorCode.NOT_FOUND, message);
  }

  static forbidden(message = 'Forbidden'): DomainError {
    return new DomainError(ErrorCode.FORBIDDEN, message);
  }

  static unauthenticated(message = 'Missing or invalid authorization header'): DomainError {
    return new DomainError(ErrorCode.UNAUTHENTICATED, message);
  }
}
