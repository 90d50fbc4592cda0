import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { DocumentStatus, RunStatus, SourceType } from '@docqa/db';
import type { SourceObject } from '@docqa/sources';
import { rowsOf } from './sql';

export interface RunRow {
  id: string;
  accountId: number;
  docSetName: string;
  workflowId: string;
  sourceType: SourceType;
  status: RunStatus;
  options: RunOptions;
  credentialsEnc: string | null;
  summaryModel: string | null;
  counters: Record<string, number>;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** What a run was asked to do (index_runs.options). */
export interface RunOptions {
  kind: 'sync' | 'retry';
  /** File types this run includes. */
  fileTypes: string[];
  forceReindex: boolean;
  /** sourceId prefix the listing covers (removal never reaches outside it). */
  scope: string;
  /** Retry runs: the one document. */
  documentId?: string;
}

export interface DocumentRow {
  id: string;
  accountId: number;
  docSetName: string;
  fileName: string;
  sourceType: SourceType;
  sourceId: string;
  status: DocumentStatus;
  fileType: string;
  contentHash: string | null;
  pageCount: number | null;
  chunkCount: number | null;
  /** Generation `chunkCount` describes (the latest written or being written). */
  chunkGeneration: number;
  /** Generation search serves (null: none); kept while the document is re-indexed. */
  servedGeneration: number | null;
  servedChunkCount: number | null;
  indexedAt: Date | null;
  lastRunId: string | null;
  /** `<model>:<dimensions>` its chunks were embedded in (null: not recorded). */
  embeddingSpace: string | null;
  /** Title from the file's metadata, when it has one. */
  title: string | null;
}

export interface PlanCounts {
  listed: number;
  new: number;
  changed: number;
  unchanged: number;
}

const RUN_COLUMNS = `id, account_id AS "accountId", docset_name AS "docSetName", workflow_id AS "workflowId",
  source_type AS "sourceType", status, options, credentials_enc AS "credentialsEnc",
  summary_model AS "summaryModel", counters, error, created_at AS "createdAt", finished_at AS "finishedAt"`;
const DOC_COLUMNS = `id, account_id AS "accountId", docset_name AS "docSetName", file_name AS "fileName",
  source_type AS "sourceType", source_id AS "sourceId", status, file_type AS "fileType",
  content_hash AS "contentHash", page_count AS "pageCount", chunk_count AS "chunkCount",
  chunk_generation AS "chunkGeneration", served_generation AS "servedGeneration",
  served_chunk_count AS "servedChunkCount", indexed_at AS "indexedAt", last_run_id AS "lastRunId",
  embedding_space AS "embeddingSpace", title`;

const PAGE_INSERT_BATCH = 200;

/**
 * Postgres side of indexing: runs, the staged listing, the document lifecycle (writes) and pages.
 * Tenant reads of docsets and documents are libs/catalog's. Methods that a
 * caller reaches with a tenant's input take the account id; the worker-side methods are keyed by
 * run and document ids that only the workflow (started by the API for that account) hands out.
 */
@Injectable()
export class IndexingStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  // ---- runs ----

  async insertRun(
    r: {
      id: string;
      accountId: number;
      docSetName: string;
      workflowId: string;
      sourceType: SourceType;
      options: RunOptions;
      credentialsEnc: string | null;
      accountName: string | null;
      summaryModel: string | null;
    },
    m?: EntityManager,
  ): Promise<void> {
    await (m ?? this.ds.manager).query(
      `INSERT INTO index_runs (id, account_id, docset_name, workflow_id, source_type, status, options,
         credentials_enc, account_name, summary_model)
       VALUES ($1, $2, $3, $4, $5, 'RUNNING', $6, $7, $8, $9)`,
      [
        r.id,
        r.accountId,
        r.docSetName,
        r.workflowId,
        r.sourceType,
        JSON.stringify(r.options),
        r.credentialsEnc,
        r.accountName,
        r.summaryModel,
      ],
    );
  }

  async getRun(runId: string): Promise<RunRow | null> {
    const rows: RunRow[] = await this.ds.query(`SELECT ${RUN_COLUMNS} FROM index_runs WHERE id = $1`, [
      runId,
    ]);
    return rows[0] ?? null;
  }

  async openRun(accountId: number, docSetName: string): Promise<RunRow | null> {
    const rows: RunRow[] = await this.ds.query(
      `SELECT ${RUN_COLUMNS} FROM index_runs WHERE account_id = $1 AND docset_name = $2 AND status = 'RUNNING'`,
      [accountId, docSetName],
    );
    return rows[0] ?? null;
  }

  async openRunsOfAccount(accountId: number, docSetNames?: string[]): Promise<RunRow[]> {
    return this.ds.query(
      `SELECT ${RUN_COLUMNS} FROM index_runs
        WHERE account_id = $1 AND status = 'RUNNING' AND ($2::text[] IS NULL OR docset_name = ANY($2))`,
      [accountId, docSetNames ?? null],
    );
  }

  /**
   * Closes a run: documents it left PENDING or INDEXING become CANCELLED (re-runnable), the staged
   * listing is dropped, and the row gets its final status and counters. Idempotent.
   */
  async finishRun(
    runId: string,
    status: Exclude<RunStatus, 'RUNNING'>,
    error: string | null,
    counters: Record<string, number>,
  ): Promise<void> {
    await this.ds.transaction(async (m) => {
      await m.query(
        `UPDATE documents SET status = 'CANCELLED', updated_at = now()
          WHERE last_run_id = $1 AND status IN ('PENDING', 'INDEXING')`,
        [runId],
      );
      await m.query(`DELETE FROM index_run_listing WHERE run_id = $1`, [runId]);
      await m.query(
        `UPDATE index_runs SET status = $2, error = $3, counters = counters || $4::jsonb, finished_at = now(), updated_at = now()
          WHERE id = $1 AND status = 'RUNNING'`,
        [runId, status, error, JSON.stringify(counters)],
      );
    });
  }

  async mergeRunCounters(runId: string, counters: Record<string, number>): Promise<void> {
    await this.ds.query(
      `UPDATE index_runs SET counters = counters || $2::jsonb, updated_at = now() WHERE id = $1`,
      [runId, JSON.stringify(counters)],
    );
  }

  // ---- listing and planning ----

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

  // ---- documents ----

  async getDocument(documentId: string): Promise<DocumentRow | null> {
    const rows: DocumentRow[] = await this.ds.query(`SELECT ${DOC_COLUMNS} FROM documents WHERE id = $1`, [
      documentId,
    ]);
    return rows[0] ?? null;
  }

  /** PENDING -> INDEXING for this run; null when the document is gone or belongs to another run. */
  async beginDocument(documentId: string, runId: string): Promise<DocumentRow | null> {
    const rows = rowsOf<DocumentRow>(
      await this.ds.query(
        `UPDATE documents SET status = 'INDEXING', error = NULL, updated_at = now()
          WHERE id = $1 AND last_run_id = $2 AND status IN ('PENDING', 'INDEXING')
          RETURNING ${DOC_COLUMNS}`,
        [documentId, runId],
      ),
    );
    return rows[0] ?? null;
  }

  /**
   * Replaces the document's pages and records what extraction learnt, in one transaction; with
   * `chunks`, also the chunk count and generation about to be written (setChunkCount, in the same
   * round trip: the small-document path).
   */
  async savePages(
    documentId: string,
    pages: string[],
    meta: { contentHash: string; summary: string | null; sizeBytes: number; title?: string | null },
    chunks?: { count: number; generation: number },
  ): Promise<void> {
    await this.ds.transaction(async (m) => {
      await m.query(`DELETE FROM document_pages WHERE document_id = $1`, [documentId]);
      for (let i = 0; i < pages.length; i += PAGE_INSERT_BATCH) {
        const slice = pages.slice(i, i + PAGE_INSERT_BATCH);
        await m.query(
          `INSERT INTO document_pages (document_id, page_number, text)
           SELECT $1, * FROM unnest($2::int[], $3::text[])`,
          [documentId, slice.map((_, j) => i + j + 1), slice.map(stripNul)],
        );
      }
      await m.query(
        `UPDATE documents SET page_count = $2, content_hash = $3, summary = $4, size_bytes = $5, title = $6,
                indexed_at = NULL, updated_at = now() WHERE id = $1`,
        [
          documentId,
          pages.length,
          meta.contentHash,
          meta.summary,
          String(meta.sizeBytes),
          meta.title ? stripNul(meta.title).slice(0, 1000) : null,
        ],
      );
      if (chunks)
        await m.query(
          `UPDATE documents SET chunk_count = $2, chunk_generation = $3, updated_at = now() WHERE id = $1`,
          [documentId, chunks.count, chunks.generation],
        );
    });
  }

  async pageCountStored(documentId: string): Promise<number> {
    const [{ n }] = await this.ds.query(
      `SELECT count(*)::int AS n FROM document_pages WHERE document_id = $1`,
      [documentId],
    );
    return Number(n);
  }

  /**
   * Records the chunk count and generation before the first chunk is written: from then on the
   * index may hold chunks 0..chunkCount-1 of that generation (beside the served one, if any).
   */
  async setChunkCount(documentId: string, chunkCount: number, generation: number): Promise<void> {
    await this.ds.query(
      `UPDATE documents SET chunk_count = $2, chunk_generation = $3, updated_at = now() WHERE id = $1`,
      [documentId, chunkCount, generation],
    );
  }

  async loadPages(documentId: string): Promise<Array<{ pageNumber: number; text: string }>> {
    return this.ds.query(
      `SELECT page_number AS "pageNumber", text FROM document_pages WHERE document_id = $1 ORDER BY page_number`,
      [documentId],
    );
  }

  /** Whether the document is still this run's INDEXING document (not deleted, not closed by its run). */
  async isIndexing(documentId: string, runId: string): Promise<boolean> {
    const rows = await this.ds.query(
      `SELECT 1 FROM documents WHERE id = $1 AND last_run_id = $2 AND status = 'INDEXING'`,
      [documentId, runId],
    );
    return rows.length > 0;
  }

  /**
   * After the unfinished generation's chunks were deleted: the index holds only the served
   * version of this (not COMPLETE) document, if any.
   */
  async clearChunkCount(documentId: string): Promise<void> {
    await this.ds.query(
      `UPDATE documents SET chunk_count = served_chunk_count,
              chunk_generation = coalesce(served_generation, chunk_generation), updated_at = now()
        WHERE id = $1 AND status <> 'COMPLETE'`,
      [documentId],
    );
  }

  /** COMPLETE: the generation just written becomes the served one (the caller retired the old one). */
  async completeDocument(
    documentId: string,
    runId: string,
    chunkCount: number,
    embeddingSpace: string,
  ): Promise<boolean> {
    const rows = rowsOf(
      await this.ds.query(
        `UPDATE documents SET status = 'COMPLETE', chunk_count = $3, served_chunk_count = $3,
                served_generation = chunk_generation, embedding_space = $4, error = NULL,
                indexed_at = now(), updated_at = now()
          WHERE id = $1 AND last_run_id = $2 AND status = 'INDEXING' RETURNING id`,
        [documentId, runId, chunkCount, embeddingSpace],
      ),
    );
    return rows.length === 1;
  }

  // ---- embedding spaces (re-embedding after a change of embedder) ----

  /**
   * COMPLETE documents to re-embed into `space`, in id order after `afterId` (keyset paging):
   * those embedded in another space (or not recorded), or all of them with `all`. Operator scope:
   * every account unless `accountId` is given.
   */
  async documentsToReembed(
    space: string,
    o: { accountId?: number; docSetName?: string; all?: boolean; afterId?: string; limit: number },
  ): Promise<DocumentRow[]> {
    const where = [`status = 'COMPLETE'`, `id > $1`];
    const params: unknown[] = [o.afterId ?? '00000000-0000-0000-0000-000000000000'];
    if (!o.all) where.push(`embedding_space IS DISTINCT FROM $${params.push(space)}`);
    if (o.accountId !== undefined) where.push(`account_id = $${params.push(o.accountId)}`);
    if (o.docSetName !== undefined) where.push(`docset_name = $${params.push(o.docSetName)}`);
    return this.ds.query(
      `SELECT ${DOC_COLUMNS} FROM documents WHERE ${where.join(' AND ')} ORDER BY id LIMIT $${params.push(o.limit)}`,
      params,
    );
  }

  /**
   * Records that a COMPLETE document's chunks are now in `space`, unless it changed meanwhile (a
   * run took it over or its content changed): false then.
   */
  async markReembedded(
    documentId: string,
    contentHash: string | null,
    chunkCount: number,
    space: string,
  ): Promise<boolean> {
    const rows = rowsOf(
      await this.ds.query(
        `UPDATE documents SET embedding_space = $4, chunk_count = $3, served_chunk_count = $3, updated_at = now()
          WHERE id = $1 AND status = 'COMPLETE' AND content_hash IS NOT DISTINCT FROM $2 RETURNING id`,
        [documentId, contentHash, chunkCount, space],
      ),
    );
    return rows.length === 1;
  }

  /** COMPLETE documents (and their docsets) whose chunks are not in `space`. */
  async countOutsideSpace(space: string): Promise<{ documents: number; docsets: number }> {
    const [r] = await this.ds.query(
      `SELECT count(*)::int AS documents, count(DISTINCT (account_id, docset_name))::int AS docsets
         FROM documents WHERE status = 'COMPLETE' AND embedding_space IS DISTINCT FROM $1`,
      [space],
    );
    return { documents: Number(r.documents), docsets: Number(r.docsets) };
  }

  /** COMPLETE documents indexed before embedding spaces were recorded, claimed for `space`. */
  async recordUnrecordedSpace(space: string): Promise<number> {
    const rows = rowsOf(
      await this.ds.query(
        `UPDATE documents SET embedding_space = $1
          WHERE status = 'COMPLETE' AND embedding_space IS NULL RETURNING id`,
        [space],
      ),
    );
    return rows.length;
  }

  async countUnrecordedSpace(): Promise<number> {
    const [r] = await this.ds.query(
      `SELECT count(*)::int AS n FROM documents WHERE status = 'COMPLETE' AND embedding_space IS NULL`,
    );
    return Number(r.n);
  }

  /**
   * ERROR or CANCELLED: the document keeps no pages and no unfinished chunks (the caller deletes
   * them); a previously indexed version stays served until a new one completes or the document is
   * removed, so re-indexing never makes a docset disappear.
   */
  async failDocument(
    documentId: string,
    runId: string,
    status: 'ERROR' | 'CANCELLED',
    error: string | null,
  ): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      const rows = rowsOf(
        await m.query(
          `UPDATE documents SET status = $3, error = $4, chunk_count = served_chunk_count,
                  chunk_generation = coalesce(served_generation, chunk_generation), page_count = NULL,
                  content_hash = NULL, updated_at = now()
            WHERE id = $1 AND last_run_id = $2 AND status <> 'COMPLETE' RETURNING id`,
          [documentId, runId, status, error],
        ),
      );
      if (rows.length) await m.query(`DELETE FROM document_pages WHERE document_id = $1`, [documentId]);
      return rows.length === 1;
    });
  }

  /** Marks an ERROR document PENDING for a retry run. False unless it is in ERROR. */
  async resetForRetry(
    m: EntityManager,
    accountId: number,
    documentId: string,
    runId: string,
  ): Promise<boolean> {
    const rows = rowsOf(
      await m.query(
        `UPDATE documents SET status = 'PENDING', error = NULL, last_run_id = $3, updated_at = now()
          WHERE id = $1 AND account_id = $2 AND status = 'ERROR' RETURNING id`,
        [documentId, accountId, runId],
      ),
    );
    return rows.length === 1;
  }

  async deleteDocuments(ids: string[]): Promise<void> {
    if (ids.length) await this.ds.query(`DELETE FROM documents WHERE id = ANY($1::uuid[])`, [ids]);
  }

  // ---- docsets (tenant-scoped; reads of docsets are in libs/catalog) ----

  async lastRuns(accountId: number): Promise<RunRow[]> {
    return this.ds.query(
      `SELECT DISTINCT ON (docset_name) ${RUN_COLUMNS} FROM index_runs
        WHERE account_id = $1 ORDER BY docset_name, created_at DESC`,
      [accountId],
    );
  }

  /** Deletes the docsets' documents (pages cascade) and runs; returns the number of documents. */
  async deleteDocsets(accountId: number, names: string[]): Promise<number> {
    return this.ds.transaction(async (m) => {
      const docs = rowsOf(
        await m.query(`DELETE FROM documents WHERE account_id = $1 AND docset_name = ANY($2) RETURNING id`, [
          accountId,
          names,
        ]),
      );
      await m.query(`DELETE FROM index_runs WHERE account_id = $1 AND docset_name = ANY($2)`, [
        accountId,
        names,
      ]);
      return docs.length;
    });
  }
}

/** Postgres text cannot hold NUL characters (some PDFs produce them). */
export function stripNul(s: string): string {
  return s.includes('\u0000') ? s.split('\u0000').join('') : s;
}
