import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DocumentStatus } from '@docqa/db';
import type { SourceObject } from '@docqa/sources';
import type { RunRow } from './run.store';

export interface PlanCounts {
  listed: number;
  new: number;
  changed: number;
  unchanged: number;
}

/**
 * A run's staged listing (`index_run_listing`) and its plan: which documents of the docset the run
 * creates, re-indexes, leaves alone or removes, and paging through them. Keyed by run: the run row
 * carries the account and docset.
 */
@Injectable()
export class RunPlanningStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async stageListing(runId: string, objects: Array<SourceObject & { fileType: string }>): Promise<void> {
    if (!objects.length) return;
    await this.ds.query(
      `INSERT INTO index_run_listing (run_id, source_id, path, file_name, file_type, etag, size_bytes, last_modified, metadata)
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::timestamptz[], $9::jsonb[])
       ON CONFLICT (run_id, source_id) DO UPDATE SET path = excluded.path, file_name = excluded.file_name,
         file_type = excluded.file_type, etag = excluded.etag, size_bytes = excluded.size_bytes,
         last_modified = excluded.last_modified, metadata = excluded.metadata`,
      [
        runId,
        objects.map((o) => o.sourceId),
        objects.map((o) => o.path),
        objects.map((o) => o.fileName),
        objects.map((o) => o.fileType),
        objects.map((o) => o.etag),
        objects.map((o) => String(o.sizeBytes)),
        objects.map((o) => o.lastModified),
        objects.map((o) => JSON.stringify(o.metadata ?? {})),
      ],
    );
  }

  async countStaged(runId: string): Promise<number> {
    const [{ n }] = await this.ds.query(
      `SELECT count(*)::int AS n FROM index_run_listing WHERE run_id = $1`,
      [runId],
    );
    return Number(n);
  }

  /**
   * Diffs the staged listing against the docset's documents in one statement: new files are
   * inserted PENDING; changed files (other etag), files a run left unfinished, and with
   * `forceReindex` every listed file, become PENDING for this run. Unchanged COMPLETE and ERROR
   * documents are left alone (retry or forceReindex re-runs an ERROR one).
   */
  async plan(run: RunRow): Promise<PlanCounts> {
    const rows: Array<{ inserted: boolean }> = await this.ds.query(
      `INSERT INTO documents AS d (id, account_id, docset_name, file_name, source_type, source_id, source_path,
         source_metadata, etag, status, file_type, size_bytes, last_run_id)
       SELECT gen_random_uuid(), $2, $3, l.file_name, $4, l.source_id, l.path,
         l.metadata || jsonb_build_object('lastModified', l.last_modified), l.etag, 'PENDING', l.file_type, l.size_bytes, $1
         FROM index_run_listing l WHERE l.run_id = $1
       ON CONFLICT (account_id, docset_name, source_type, source_id) DO UPDATE
         SET status = 'PENDING', etag = excluded.etag, file_name = excluded.file_name,
             source_path = excluded.source_path, source_metadata = excluded.source_metadata,
             file_type = excluded.file_type, size_bytes = excluded.size_bytes,
             last_run_id = excluded.last_run_id, error = NULL, updated_at = now()
         WHERE $5::boolean OR d.etag IS DISTINCT FROM excluded.etag OR d.status IN ('PENDING', 'INDEXING', 'CANCELLED')
       RETURNING (xmax = 0) AS inserted`,
      [run.id, run.accountId, run.docSetName, run.sourceType, run.options.forceReindex],
    );
    const listed = await this.countStaged(run.id);
    const created = rows.filter((r) => r.inserted).length;
    const changed = rows.length - created;
    return { listed, new: created, changed, unchanged: listed - rows.length };
  }

  /** Documents of the run's scope and file types that its listing no longer has. */
  async goneDocuments(run: RunRow, limit: number): Promise<Array<{ id: string }>> {
    return this.ds.query(
      `SELECT d.id FROM documents d
        WHERE d.account_id = $2 AND d.docset_name = $3 AND d.source_type = $4
          AND left(d.source_id, length($5)) = $5 AND d.file_type = ANY($6)
          AND NOT EXISTS (SELECT 1 FROM index_run_listing l WHERE l.run_id = $1 AND l.source_id = d.source_id)
        ORDER BY d.id LIMIT $7`,
      [
        run.id,
        run.accountId,
        run.docSetName,
        run.sourceType,
        run.options.scope,
        run.options.fileTypes,
        limit,
      ],
    );
  }

  async countInScope(run: RunRow): Promise<number> {
    const [{ n }] = await this.ds.query(
      `SELECT count(*)::int AS n FROM documents
        WHERE account_id = $1 AND docset_name = $2 AND source_type = $3 AND left(source_id, length($4)) = $4`,
      [run.accountId, run.docSetName, run.sourceType, run.options.scope],
    );
    return Number(n);
  }

  /** The next PENDING documents of a run in id order, after `afterId` (keyset paging). */
  async nextPending(
    runId: string,
    afterId: string | null,
    limit: number,
  ): Promise<Array<{ id: string; fileName: string }>> {
    return this.ds.query(
      `SELECT id, file_name AS "fileName" FROM documents
        WHERE last_run_id = $1 AND status = 'PENDING' AND ($2::uuid IS NULL OR id > $2::uuid)
        ORDER BY id LIMIT $3`,
      [runId, afterId, limit],
    );
  }

  async countRunDocuments(runId: string): Promise<Partial<Record<DocumentStatus, number>>> {
    const rows: Array<{ status: DocumentStatus; n: number }> = await this.ds.query(
      `SELECT status, count(*)::int AS n FROM documents WHERE last_run_id = $1 GROUP BY status`,
      [runId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }
}
