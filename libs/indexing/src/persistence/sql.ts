/** Postgres text cannot hold NUL characters (some PDFs produce them). */
export function stripNul(s: string): string {
  return s.includes('\u0000') ? s.split('\u0000').join('') : s;
}
