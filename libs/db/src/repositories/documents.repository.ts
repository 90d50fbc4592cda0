import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { documentServedSql, type DocumentStatus, type SourceType } from '../entities/document.entity';

const SERVED = documentServedSql();

/** A document as the Document API lists it (no text, no error details beyond the reason). */
export interface DocumentListRow {
  id: string;
  fileName: string;
  docSetName: string;
  sourceType: SourceType;
  status: DocumentStatus;
  createdAt: Date;
  updatedAt: Date;
}

export type StatusCountsByName = Record<DocumentStatus, number>;

/** One docset of an account, aggregated over its documents. */
export interface DocsetRow {
  docSetName: string;
  sourceTypes: SourceType[];
  counts: StatusCountsByName;
  documentCount: number;
  pageCount: number;
  chunkCount: number;
  lastIndexedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DocsetMetadataRow extends DocsetRow {
  totalBytes: number;
  fileTypes: Array<{ fileType: string; documentCount: number }>;
  sources: Array<{ sourceType: SourceType; documentCount: number }>;
  firstIndexedAt: Date | null;
  summaries: Array<{ documentId: string; fileName: string; summary: string }>;
  summaryCount: number;
}

const LIST_COLUMNS = `id, file_name AS "fileName", docset_name AS "docSetName", source_type AS "sourceType",
  status, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Most summaries returned by `metadata` (the rest are counted in `summaryCount`). */
export const METADATA_SUMMARY_LIMIT = 100;

function emptyCounts(): StatusCountsByName {
  return { PENDING: 0, INDEXING: 0, COMPLETE: 0, ERROR: 0, CANCELLED: 0 };
}

/**
 * Tenant-scoped reads of documents for the Document API (listings, docsets, metadata, the
 * ownership check of /ask). Every method takes the account id and filters on it; `allowed` narrows
 * further to a restricted token's docsets (null: no narrowing). Writes belong to indexing.
 *
 * Docset rules (DESIGN.md "Data", as amended in docs/decisions.md): a docset exists, and can be
 * asked, when one of its documents has a served indexed version (`documentServedSql`: COMPLETE, or
 * re-indexing with its previous version still answering); listings answer for any docset the account has documents or index runs in, so
 * a first run that is still going or that failed can be inspected.
 */
@Injectable()
export class DocumentsRepository {
  constructor(private readonly ds: DataSource) {}

  /** The names among `names` that are existing docsets of the account (one served document). */
  async existingDocsetNames(accountId: number, names: readonly string[]): Promise<string[]> {
    if (names.length === 0) return [];
    const rows: Array<{ name: string }> = await this.ds.query(
      `SELECT DISTINCT docset_name AS name FROM documents
        WHERE account_id = $1 AND docset_name = ANY($2) AND ${SERVED}`,
      [accountId, [...names]],
    );
    return rows.map((r) => r.name);
  }

  /** Whether the account has any document or index run in the docset. */
  async knowsDocset(accountId: number, docSetName: string): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(
      `SELECT 1 FROM documents WHERE account_id = $1 AND docset_name = $2
       UNION ALL SELECT 1 FROM index_runs WHERE account_id = $1 AND docset_name = $2 LIMIT 1`,
      [accountId, docSetName],
    );
    return rows.length > 0;
  }

  /** Documents of one docset by file name, `offset`/`limit` paging (limit null: all). */
  async listByDocset(
    accountId: number,
    docSetName: string,
    page: { limit: number | null; offset: number } = { limit: null, offset: 0 },
  ): Promise<DocumentListRow[]> {
    return this.ds.query(
      `SELECT ${LIST_COLUMNS} FROM documents WHERE account_id = $1 AND docset_name = $2
        ORDER BY file_name, id LIMIT $3 OFFSET $4`,
      [accountId, docSetName, page.limit, page.offset],
    );
  }

  /**
   * The account's most recently created documents, newest first. The account (and token) filter
   * is in the WHERE clause, so `limit` rows come back whenever that many exist.
   */
  async recent(
    accountId: number,
    allowed: readonly string[] | null,
    limit: number,
  ): Promise<DocumentListRow[]> {
    return this.ds.query(
      `SELECT ${LIST_COLUMNS} FROM documents
        WHERE account_id = $1 AND ($2::text[] IS NULL OR docset_name = ANY($2::text[]))
        ORDER BY created_at DESC, id DESC LIMIT $3`,
      [accountId, allowed ? [...allowed] : null, limit],
    );
  }

  async findById(accountId: number, id: string): Promise<DocumentListRow | null> {
    const rows: DocumentListRow[] = await this.ds.query(
      `SELECT ${LIST_COLUMNS} FROM documents WHERE account_id = $1 AND id = $2::uuid`,
      [accountId, id],
    );
    return rows[0] ?? null;
  }

  /** Docsets that exist (at least one served document), by name. `chunkCount`: chunks search serves. */
  async docsets(accountId: number, allowed: readonly string[] | null): Promise<DocsetRow[]> {
    const rows: Array<Omit<DocsetRow, 'counts'> & { status: Record<string, number> }> = await this.ds.query(
      `SELECT docset_name AS "docSetName",
              array_agg(DISTINCT source_type ORDER BY source_type) AS "sourceTypes",
              jsonb_build_object(
                'PENDING', count(*) FILTER (WHERE status = 'PENDING'),
                'INDEXING', count(*) FILTER (WHERE status = 'INDEXING'),
                'COMPLETE', count(*) FILTER (WHERE status = 'COMPLETE'),
                'ERROR', count(*) FILTER (WHERE status = 'ERROR'),
                'CANCELLED', count(*) FILTER (WHERE status = 'CANCELLED')) AS status,
              count(*)::int AS "documentCount",
              coalesce(sum(page_count) FILTER (WHERE status = 'COMPLETE'), 0)::int AS "pageCount",
              coalesce(sum(served_chunk_count), 0)::int AS "chunkCount",
              max(indexed_at) FILTER (WHERE status = 'COMPLETE') AS "lastIndexedAt",
              min(created_at) AS "createdAt", max(updated_at) AS "updatedAt"
         FROM documents
        WHERE account_id = $1 AND ($2::text[] IS NULL OR docset_name = ANY($2::text[]))
        GROUP BY docset_name
       HAVING bool_or(${SERVED})
        ORDER BY docset_name`,
      [accountId, allowed ? [...allowed] : null],
    );
    return rows.map(({ status, ...r }) => ({ ...r, counts: { ...emptyCounts(), ...status } }));
  }

  /** Aggregates of one docset (null when the account has no documents in it). */
  async metadata(accountId: number, docSetName: string): Promise<DocsetMetadataRow | null> {
    const [head]: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT array_agg(DISTINCT source_type ORDER BY source_type) AS "sourceTypes",
              jsonb_build_object(
                'PENDING', count(*) FILTER (WHERE status = 'PENDING'),
                'INDEXING', count(*) FILTER (WHERE status = 'INDEXING'),
                'COMPLETE', count(*) FILTER (WHERE status = 'COMPLETE'),
                'ERROR', count(*) FILTER (WHERE status = 'ERROR'),
                'CANCELLED', count(*) FILTER (WHERE status = 'CANCELLED')) AS status,
              count(*)::int AS "documentCount",
              coalesce(sum(page_count) FILTER (WHERE status = 'COMPLETE'), 0)::int AS "pageCount",
              coalesce(sum(served_chunk_count), 0)::int AS "chunkCount",
              coalesce(sum(size_bytes), 0)::bigint AS "totalBytes",
              max(indexed_at) FILTER (WHERE status = 'COMPLETE') AS "lastIndexedAt",
              min(indexed_at) FILTER (WHERE status = 'COMPLETE') AS "firstIndexedAt",
              min(created_at) AS "createdAt", max(updated_at) AS "updatedAt",
              count(*) FILTER (WHERE status = 'COMPLETE' AND summary IS NOT NULL AND summary <> '')::int AS "summaryCount"
         FROM documents WHERE account_id = $1 AND docset_name = $2
       HAVING count(*) > 0`,
      [accountId, docSetName],
    );
    if (!head) return null;
    const fileTypes: Array<{ fileType: string; documentCount: number }> = await this.ds.query(
      `SELECT file_type AS "fileType", count(*)::int AS "documentCount" FROM documents
        WHERE account_id = $1 AND docset_name = $2 GROUP BY file_type ORDER BY count(*) DESC, file_type`,
      [accountId, docSetName],
    );
    const sources: Array<{ sourceType: SourceType; documentCount: number }> = await this.ds.query(
      `SELECT source_type AS "sourceType", count(*)::int AS "documentCount" FROM documents
        WHERE account_id = $1 AND docset_name = $2 GROUP BY source_type ORDER BY source_type`,
      [accountId, docSetName],
    );
    const summaries: Array<{ documentId: string; fileName: string; summary: string }> = await this.ds.query(
      `SELECT id AS "documentId", file_name AS "fileName", summary FROM documents
        WHERE account_id = $1 AND docset_name = $2 AND status = 'COMPLETE' AND summary IS NOT NULL AND summary <> ''
        ORDER BY file_name, id LIMIT $3`,
      [accountId, docSetName, METADATA_SUMMARY_LIMIT],
    );
    const { status, ...rest } = head as { status: Record<string, number> } & Record<string, unknown>;
    return {
      ...(rest as unknown as Omit<DocsetMetadataRow, 'counts' | 'fileTypes' | 'sources' | 'summaries'>),
      docSetName,
      totalBytes: Number(rest.totalBytes ?? 0),
      counts: { ...emptyCounts(), ...status },
      fileTypes: fileTypes.map((f) => ({
        fileType: f.fileType || 'unknown',
        documentCount: f.documentCount,
      })),
      sources,
      summaries,
    };
  }
}
