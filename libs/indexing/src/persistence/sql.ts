/** TypeORM's `query()` returns `[rows, affected]` for UPDATE/DELETE ... RETURNING on Postgres. */
export function rowsOf<T>(result: unknown): T[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  )
    return result[0] as T[];
  return result as T[];
}

/** Postgres unique violation (the one-open-run-per-docset index). */
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

/** Postgres text cannot hold NUL characters (some PDFs produce them). */
export function stripNul(s: string): string {
  return s.includes('\u0000') ? s.split('\u0000').join('') : s;
}
