/** What a log line may say about an error. */
export interface LoggableError {
  errName: string;
  /** The database's SQLSTATE (`23514`, `22021`) or a driver's code (`ECONNREFUSED`). */
  errCode?: string;
  /** Absent for a database error: its message may quote a parameter or a row. */
  errMessage?: string;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * A failed query: TypeORM's QueryFailedError (it carries the SQL and its parameters) or the
 * driver's own error (a SQLSTATE code, and a message, detail and where that may quote a
 * parameter, a row or document text).
 */
export function isDatabaseError(err: unknown): boolean {
  const e = err as { name?: unknown; code?: unknown; query?: unknown; severity?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  return (
    e.name === 'QueryFailedError' ||
    'query' in e ||
    (typeof e.code === 'string' && SQLSTATE.test(e.code) && typeof e.severity === 'string')
  );
}

/** A message with anything from a SQL keyword on cut out, capped at 300 characters. */
export function withoutSql(message: string): string {
  const cleaned = message.replace(/\b(SELECT|INSERT|UPDATE|DELETE|WITH)\b\s[\s\S]*/i, '$1 …');
  return cleaned.length > 300 ? `${cleaned.slice(0, 300)}…` : cleaned;
}

/**
 * The fields of an error that are safe in a log line: its name and code, and for errors other than
 * a failed query its message (SQL cut out). Never the stack, the SQL, its parameters or the
 * driver's detail.
 */
export function loggableError(err: unknown): LoggableError {
  const e = (err ?? {}) as { name?: unknown; code?: unknown; message?: unknown };
  const errName = typeof e.name === 'string' ? e.name : typeof err;
  const errCode = typeof e.code === 'string' || typeof e.code === 'number' ? String(e.code) : undefined;
  if (isDatabaseError(err)) return { errName, ...(errCode ? { errCode } : {}) };
  const message = typeof e.message === 'string' ? e.message : String(err);
  return { errName, ...(errCode ? { errCode } : {}), errMessage: withoutSql(message) };
}
