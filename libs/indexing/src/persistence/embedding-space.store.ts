import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DOC_COLUMNS, DocumentRow } from './document-lifecycle.store';
import { rowsOf } from '@docqa/db';

/**
 * Which embedding space (`<model>:<dimensions>`) COMPLETE documents' chunks are in: re-embedding
 * after a change of embedder, and the check at start-up. Operator scope: every account unless an
 * account id is given.
 */
@Injectable()
export class EmbeddingSpaceStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

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
}
