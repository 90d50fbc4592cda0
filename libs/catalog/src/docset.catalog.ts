import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SourceType } from '@docqa/db';
import type { FilingMetadata } from '@docqa/text';
import { documentServedSql } from './docset-existence';
import { STATUS_COUNTS_JSON_SQL, StatusCounts, emptyStatusCounts, statusCountsOf } from './status-counts';

const SERVED = documentServedSql();

/** One docset of an account, aggregated over its documents. */
export interface DocsetRow {
  docSetName: string;
  sourceTypes: SourceType[];
  counts: StatusCounts;
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
  /** Company, form and period of the docset's filings (libs/text filing.ts), by file name. */
  filings: Array<{ documentId: string; fileName: string } & FilingMetadata>;
}

/** A docset's documents by status, as the indexing summary shows them. */
export interface DocsetStatusRow {
  docSetName: string;
  sourceTypes: string[];
  counts: StatusCounts;
  /** Whether the docset exists (one of its documents is served). */
  exists: boolean;
}

/** Documents of one source folder: source type, `sourceId` prefix and metadata they must carry. */
export interface SourceFolderFilter {
  sourceType: SourceType;
  sourceIdPrefix: string;
  metadata: Record<string, string>;
}

/** Most summaries returned by `metadata` (the rest are counted in `summaryCount`). */
export const METADATA_SUMMARY_LIMIT = 100;

/**
 * Tenant-scoped reads of docsets: existence, listings, metadata, status counts. Every method
 * takes the account id and filters on it; `allowed` narrows further to a restricted scope's
 * docsets (null: no narrowing). Writes belong to indexing.
 *
 * Two questions have one answer each here (DESIGN.md "Data", as amended in docs/adr/0015):
 * - a docset *exists*, is listed and can be asked, when one of its documents has a served indexed
 *   version (`documentServedSql`: COMPLETE, or re-indexing with its previous version answering);
 * - a docset is *known* to an account when the account has documents or index runs in it: it can
 *   be inspected (documents, metadata, progress) and deleted, so a first run that is still going
 *   or that failed can be looked at.
 */
@Injectable()
export class DocsetCatalog {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

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

  /** Every existing docset of the account, by name. */
  async existingDocsetNamesOfAccount(accountId: number): Promise<string[]> {
    const rows: Array<{ name: string }> = await this.ds.query(
      `SELECT DISTINCT docset_name AS name FROM documents WHERE account_id = $1 AND ${SERVED} ORDER BY docset_name`,
      [accountId],
    );
    return rows.map((r) => r.name);
  }

  /** Whether the docset is known to the account (it has a document or an index run in it). */
  async knowsDocset(accountId: number, docSetName: string): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(
      `SELECT 1 FROM documents WHERE account_id = $1 AND docset_name = $2
       UNION ALL SELECT 1 FROM index_runs WHERE account_id = $1 AND docset_name = $2 LIMIT 1`,
      [accountId, docSetName],
    );
    return rows.length > 0;
  }

  /** The known docsets of the account among `names` (null: all of them). */
  async knownDocsetNames(accountId: number, names: readonly string[] | null): Promise<string[]> {
    const rows: Array<{ name: string }> = await this.ds.query(
      `SELECT docset_name AS name FROM documents WHERE account_id = $1 AND ($2::text[] IS NULL OR docset_name = ANY($2::text[]))
       UNION SELECT docset_name FROM index_runs WHERE account_id = $1 AND ($2::text[] IS NULL OR docset_name = ANY($2::text[]))`,
      [accountId, names ? [...names] : null],
    );
    return rows.map((r) => r.name);
  }

  /** Number of documents of the docset, whatever their status. */
  async documentCount(accountId: number, docSetName: string): Promise<number> {
    const [{ n }] = await this.ds.query(
      `SELECT count(*)::int AS n FROM documents WHERE account_id = $1 AND docset_name = $2`,
      [accountId, docSetName],
    );
    return Number(n);
  }

  /** Docsets that exist (at least one served document), by name. `chunkCount`: chunks search serves. */
  async docsets(accountId: number, allowed: readonly string[] | null): Promise<DocsetRow[]> {
    const rows: Array<Omit<DocsetRow, 'counts'> & { status: Record<string, number> }> = await this.ds.query(
      `SELECT docset_name AS "docSetName",
              array_agg(DISTINCT source_type ORDER BY source_type) AS "sourceTypes",
              ${STATUS_COUNTS_JSON_SQL} AS status,
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
    return rows.map(({ status, ...r }) => ({ ...r, counts: { ...emptyStatusCounts(), ...status } }));
  }

  /** Aggregates of one docset (null when the account has no documents in it). */
  async metadata(accountId: number, docSetName: string): Promise<DocsetMetadataRow | null> {
    const [head]: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT array_agg(DISTINCT source_type ORDER BY source_type) AS "sourceTypes",
              ${STATUS_COUNTS_JSON_SQL} AS status,
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
    const filings: Array<{ documentId: string; fileName: string; filing: FilingMetadata }> =
      await this.ds.query(
        `SELECT id AS "documentId", file_name AS "fileName", filing FROM documents
        WHERE account_id = $1 AND docset_name = $2 AND status = 'COMPLETE' AND filing IS NOT NULL
        ORDER BY file_name, id LIMIT $3`,
        [accountId, docSetName, METADATA_SUMMARY_LIMIT],
      );
    const { status, ...rest } = head as { status: Record<string, number> } & Record<string, unknown>;
    return {
      ...(rest as unknown as Omit<
        DocsetMetadataRow,
        'counts' | 'fileTypes' | 'sources' | 'summaries' | 'filings'
      >),
      docSetName,
      totalBytes: Number(rest.totalBytes ?? 0),
      counts: { ...emptyStatusCounts(), ...status },
      fileTypes: fileTypes.map((f) => ({
        fileType: f.fileType || 'unknown',
        documentCount: f.documentCount,
      })),
      sources,
      summaries,
      filings: filings.map((f) => ({ documentId: f.documentId, fileName: f.fileName, ...f.filing })),
    };
  }

  /** The docset's documents by status; `folder`: only those of one source folder (and below). */
  async statusCounts(
    accountId: number,
    docSetName: string,
    folder?: SourceFolderFilter,
  ): Promise<StatusCounts> {
    const rows: Array<{ status: string; n: number }> = folder
      ? await this.ds.query(
          `SELECT status, count(*)::int AS n FROM documents
            WHERE account_id = $1 AND docset_name = $2 AND source_type = $3
              AND left(source_id, length($4)) = $4 AND source_metadata @> $5::jsonb
            GROUP BY status`,
          [accountId, docSetName, folder.sourceType, folder.sourceIdPrefix, JSON.stringify(folder.metadata)],
        )
      : await this.ds.query(
          `SELECT status, count(*)::int AS n FROM documents WHERE account_id = $1 AND docset_name = $2 GROUP BY status`,
          [accountId, docSetName],
        );
    return statusCountsOf(rows);
  }

  /** Every docset the account has documents in, with its counts by status and its existence. */
  async statusByDocset(accountId: number): Promise<DocsetStatusRow[]> {
    const rows: Array<{
      docSetName: string;
      status: Record<string, number>;
      sourceTypes: string[];
      exists: boolean;
    }> = await this.ds.query(
      `SELECT docset_name AS "docSetName", ${STATUS_COUNTS_JSON_SQL} AS status,
                array_agg(DISTINCT source_type ORDER BY source_type) AS "sourceTypes", bool_or(${SERVED}) AS "exists"
           FROM documents WHERE account_id = $1 GROUP BY docset_name ORDER BY docset_name`,
      [accountId],
    );
    return rows.map(({ status, ...r }) => ({ ...r, counts: { ...emptyStatusCounts(), ...status } }));
  }
}
