import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { DomainError } from './domain-error';
import { ErrorCode } from './error-codes';
import { renderError } from './error-body';
import { surfaceOf } from './surface';

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
      const ex = exception as Error;
      // Name and message only: stacks, SQL and driver details never reach a log line or response.
      this.logger.error(
        { errorId, errName: ex?.name, errMessage: truncate(String(ex?.message ?? exception)) },
        'Unhandled error',
      );
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

function truncate(s: string): string {
  // Drop anything that looks like SQL and cap the length.
  const cleaned = s.replace(/\b(SELECT|INSERT|UPDATE|DELETE)\b[\s\S]*/i, '$1 …');
  return cleaned.length > 300 ? cleaned.slice(0, 300) + '…' : cleaned;
}
