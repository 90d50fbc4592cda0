import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DocumentStatus, SourceType } from '@docqa/db';
import { documentServedSql } from './docset-existence';

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

/** One document of an account: what its listing shows and what a retry needs. */
export interface DocumentRecord extends DocumentListRow {
  fileType: string;
  lastRunId: string | null;
}

/** Where a served document's original file is: its source and the run (credentials) that indexed it. */
export interface ServedDocumentSource {
  docSetName: string;
  fileName: string;
  sourceType: SourceType;
  sourceId: string;
  runId: string | null;
  credentialsEnc: string | null;
}

/** A source scope of a docset: the documents of one source type under a `sourceId` prefix. */
export interface DocsetSourceScope {
  accountId: number;
  docSetName: string;
  sourceType: SourceType;
  /** `sourceId` prefix. */
  scope: string;
}

const LIST_COLUMNS = `id, file_name AS "fileName", docset_name AS "docSetName", source_type AS "sourceType",
  status, created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * Tenant-scoped reads of documents: listings, a document by id, a cited document's source, and
 * the source-scope reads of incremental sync. Every method takes the account id and filters on it.
 * Writes belong to indexing (its run and document stores).
 */
@Injectable()
export class DocumentCatalog {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

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
   * The account's most recently created documents, newest first. The account (and scope) filter
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

  /** The account's document with this id (a uuid), or null. */
  async findById(accountId: number, id: string): Promise<DocumentRecord | null> {
    const rows: DocumentRecord[] = await this.ds.query(
      `SELECT ${LIST_COLUMNS}, file_type AS "fileType", last_run_id AS "lastRunId"
         FROM documents WHERE account_id = $1 AND id = $2::uuid`,
      [accountId, id],
    );
    return rows[0] ?? null;
  }

  /** The source of the account's document, while it is served (a citation's file link); else null. */
  async servedDocumentSource(accountId: number, documentId: string): Promise<ServedDocumentSource | null> {
    const rows: ServedDocumentSource[] = await this.ds.query(
      `SELECT d.docset_name AS "docSetName", d.file_name AS "fileName", d.source_type AS "sourceType", d.source_id AS "sourceId",
              r.id AS "runId", r.credentials_enc AS "credentialsEnc"
         FROM documents d
         LEFT JOIN index_runs r ON r.id = d.last_run_id AND r.account_id = d.account_id
        WHERE d.id = $1 AND d.account_id = $2 AND ${documentServedSql('d')}`,
      [documentId, accountId],
    );
    return rows[0] ?? null;
  }

  /**
   * Documents a change-feed run removes from its scope: those whose item the feed reported
   * deleted (the run's index_run_removals), and the old row of a renamed or moved item (same item
   * id in the run's listing, another sourceId). The run must be the account's: its removals never
   * reach another account's documents of the same item.
   */
  async removedByChanges(runId: string, s: DocsetSourceScope, limit: number): Promise<Array<{ id: string }>> {
    return this.ds.query(
      `SELECT d.id FROM documents d
        WHERE d.account_id = $2 AND d.docset_name = $3 AND d.source_type = $4
          AND left(d.source_id, length($5)) = $5
          AND EXISTS (SELECT 1 FROM index_runs r WHERE r.id = $1 AND r.account_id = d.account_id)
          AND (d.source_metadata->>'itemId' IN (SELECT item_id FROM index_run_removals WHERE run_id = $1)
               OR EXISTS (SELECT 1 FROM index_run_listing l
                           WHERE l.run_id = $1 AND l.metadata->>'itemId' = d.source_metadata->>'itemId'
                             AND l.source_id <> d.source_id))
        ORDER BY d.id LIMIT $6`,
      [runId, s.accountId, s.docSetName, s.sourceType, s.scope, limit],
    );
  }

  /** Documents of the scope whose source item is not among `itemIds`. */
  async countInScopeExceptItems(s: DocsetSourceScope, itemIds: readonly string[]): Promise<number> {
    const [{ n }] = await this.ds.query(
      `SELECT count(*)::int AS n FROM documents
        WHERE account_id = $1 AND docset_name = $2 AND source_type = $3 AND left(source_id, length($4)) = $4
          AND NOT (coalesce(source_metadata->>'itemId', '') = ANY($5::text[]))`,
      [s.accountId, s.docSetName, s.sourceType, s.scope, [...itemIds]],
    );
    return Number(n);
  }
}
