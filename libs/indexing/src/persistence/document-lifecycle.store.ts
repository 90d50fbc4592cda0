import type { FilingMetadata } from '@docqa/text';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { DocumentStatus, SourceType } from '@docqa/db';
import { rowsOf } from '@docqa/db';

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
  /** Size the listing reported (null: not known). */
  sizeBytes: number | null;
}

export const DOC_COLUMNS = `id, account_id AS "accountId", docset_name AS "docSetName", file_name AS "fileName",
  source_type AS "sourceType", source_id AS "sourceId", status, file_type AS "fileType",
  content_hash AS "contentHash", page_count AS "pageCount", chunk_count AS "chunkCount",
  chunk_generation AS "chunkGeneration", served_generation AS "servedGeneration",
  served_chunk_count AS "servedChunkCount", indexed_at AS "indexedAt", last_run_id AS "lastRunId",
  embedding_space AS "embeddingSpace", title, size_bytes::float8 AS "sizeBytes"`;

const PAGE_INSERT_BATCH = 200;

/**
 * A document's way through indexing (PENDING -> INDEXING -> COMPLETE / ERROR / CANCELLED), its
 * pages, and deleting documents. Tenant reads of docsets and documents are libs/catalog's. The
 * worker-side methods are keyed by run and document ids that only the workflow (started by the API
 * for that account) hands out; the ones a tenant's input reaches take the account id.
 */
@Injectable()
export class DocumentLifecycleStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

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
    meta: {
      contentHash: string;
      summary: string | null;
      sizeBytes: number;
      title?: string | null;
      filing?: FilingMetadata | null;
    },
    chunks?: { count: number; generation: number },
  ): Promise<void> {
    await this.ds.transaction(async (m) => {
      await m.query(`DELETE FROM document_pages WHERE document_id = $1`, [documentId]);
      for (let i = 0; i < pages.length; i += PAGE_INSERT_BATCH) {
        const slice = pages.slice(i, i + PAGE_INSERT_BATCH);
        await m.query(
          `INSERT INTO document_pages (document_id, page_number, text)
           SELECT $1, * FROM unnest($2::int[], $3::text[])`,
          [documentId, slice.map((_, j) => i + j + 1), slice],
        );
      }
      await m.query(
        `UPDATE documents SET page_count = $2, content_hash = $3, summary = $4, size_bytes = $5, title = $6,
                filing = $7, indexed_at = NULL, updated_at = now() WHERE id = $1`,
        [
          documentId,
          pages.length,
          meta.contentHash,
          meta.summary,
          String(meta.sizeBytes),
          meta.title ? meta.title.slice(0, 1000) : null,
          meta.filing && Object.keys(meta.filing).length ? JSON.stringify(meta.filing) : null,
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

  /**
   * Deletes the docsets' documents (pages cascade) and their runs, together; returns the number of
   * documents. Tenant-scoped (reads of docsets are in libs/catalog).
   */
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
