import { DOCUMENT_STATUSES, type DocumentStatus } from '@docqa/db';

/** Documents per status: the one shape of status counts (listings, metadata, progress, summary). */
export type StatusCounts = Record<DocumentStatus, number>;

export function emptyStatusCounts(): StatusCounts {
  return { PENDING: 0, INDEXING: 0, COMPLETE: 0, ERROR: 0, CANCELLED: 0 };
}

/** Sums `(status, n)` rows (as `GROUP BY status` returns them) into counts. */
export function statusCountsOf(rows: ReadonlyArray<{ status: string; n: number | string }>): StatusCounts {
  const c = emptyStatusCounts();
  for (const r of rows)
    if ((DOCUMENT_STATUSES as readonly string[]).includes(r.status))
      c[r.status as DocumentStatus] += Number(r.n);
  return c;
}

/** SQL: a `jsonb` object of the counts per status of the grouped documents (read with `statusCountsOf`'s keys). */
export const STATUS_COUNTS_JSON_SQL = `jsonb_build_object(${DOCUMENT_STATUSES.map(
  (s) => `'${s}', count(*) FILTER (WHERE status = '${s}')`,
).join(', ')})`;
