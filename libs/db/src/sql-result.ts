/**
 * Reading what TypeORM's `query()` returns on Postgres (and PGlite): rows for SELECT, `[rows,
 * affected]` for UPDATE/DELETE ... RETURNING.
 */
export function rowsOf<T = Record<string, unknown>>(result: unknown): T[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  )
    return result[0] as T[];
  return result as T[];
}

/**
 * Whether a query failed on a unique index (SQLSTATE 23505), optionally a named one. TypeORM's
 * QueryFailedError carries the driver's code and constraint on itself and on `driverError`.
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as {
    code?: string;
    constraint?: string;
    driverError?: { code?: string; constraint?: string };
  };
  const code = e?.code ?? e?.driverError?.code;
  const name = e?.constraint ?? e?.driverError?.constraint;
  return code === '23505' && (!constraint || name === constraint);
}
