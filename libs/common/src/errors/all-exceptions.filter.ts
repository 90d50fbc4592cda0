import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { DomainError } from './domain-error';
import { ErrorCode } from './error-codes';
import { renderError } from './error-body';
import { surfaceOf } from './surface';
import { loggableError } from '../logging/loggable-error';

const STATUS_CODES: Record<number, ErrorCode> = {
  400: ErrorCode.VALIDATION_ERROR,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  422: ErrorCode.UNPROCESSABLE,
  429: ErrorCode.RATE_LIMITED,
  503: ErrorCode.DEPENDENCY_UNAVAILABLE,
};

/** Turns anything thrown into a DomainError; unknown failures become INTERNAL_ERROR with an id. */
export function toDomainError(exception: unknown, req?: Request): { error: DomainError; errorId?: string } {
  if (exception instanceof DomainError) return { error: exception };
  const e = exception as { type?: string; status?: number; statusCode?: number };
  // body-parser failures arrive as plain errors carrying `type`.
  if (e && e.type === 'entity.parse.failed') {
    return { error: new DomainError(ErrorCode.MALFORMED_JSON, 'Request body is not valid JSON') };
  }
  if (e && e.type === 'encoding.invalid') {
    return { error: new DomainError(ErrorCode.MALFORMED_JSON, 'Request body is not valid UTF-8') };
  }
  if (e && e.type === 'entity.too.large') {
    return { error: new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, 'Request body is too large') };
  }
  if (e && (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')) {
    return { error: new DomainError(ErrorCode.VALIDATION_ERROR, 'Unsupported request body encoding') };
  }
  if (databaseUnavailable(exception)) {
    return {
      error: new DomainError(
        ErrorCode.DEPENDENCY_UNAVAILABLE,
        'The database is not available; try again shortly',
      ),
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const code = STATUS_CODES[status];
    if (code) {
      const message =
        status === 404 && req
          ? `Route ${req.method} ${req.path} not found`
          : publicMessage(exception, status);
      return { error: new DomainError(code, message) };
    }
  }
  return {
    error: new DomainError(ErrorCode.INTERNAL_ERROR, 'Internal server error'),
    errorId: randomUUID(),
  };
}

/** Postgres SQLSTATEs of a server that cannot take the query now (shutting down, starting, full). */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08006',
]);
/** Connect-phase failures (a query's dropped connection is matched by its message below). */
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * A database that cannot be reached or gives no connection in time (pg-pool's connect timeout when
 * every connection is busy) is a dependency that is down, 503, not a fault of the service: the
 * client may retry. Errors of a query that ran (constraint, syntax) are not matched.
 */
export function databaseUnavailable(exception: unknown): boolean {
  const e = exception as { code?: unknown; message?: unknown; driverError?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  const inner = (e.driverError ?? e) as { code?: unknown; message?: unknown };
  const code = typeof inner.code === 'string' ? inner.code : '';
  if (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code)) return true;
  const message = typeof inner.message === 'string' ? inner.message : '';
  return /^(timeout exceeded when trying to connect|Connection terminated( unexpectedly| due to connection timeout)?)$/.test(
    message,
  );
}

function publicMessage(ex: HttpException, status: number): string {
  const r = ex.getResponse();
  if (typeof r === 'string') return r;
  const m = (r as { message?: unknown }).message;
  if (typeof m === 'string') return m;
  if (Array.isArray(m)) return m.join('; ');
  return status >= 500 ? 'Service unavailable' : 'Request failed';
}

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(private readonly logger: PinoLogger) {
    logger.setContext('Errors');
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const { error, errorId } = toDomainError(exception, req);
    if (errorId) {
      // Name, code and (not for a failed query) message: stacks, SQL, query parameters and driver
      // details never reach a log line or response.
      this.logger.error({ errorId, ...loggableError(exception) }, 'Unhandled error');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    const body = renderError(error, surfaceOf(req.originalUrl ?? req.url));
    if (errorId) Object.assign(body, { errorId });
    for (const [k, v] of Object.entries(error.headers ?? {})) res.setHeader(k, v);
    res.status(error.status).json(body);
  }
}
