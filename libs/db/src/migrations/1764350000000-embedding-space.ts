import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The embedding space (`<model>:<dimensions>`) a COMPLETE document's chunks were embedded in, so
 * a change of embedder is never silent: documents of another space are not in the current index
 * version until `npm run cli -- reembed` (or a re-sync) writes them again. NULL: indexed before this
 * column existed (resolved once at start-up, see EmbeddingSpaceCheck).
 */
export class EmbeddingSpace1764350000000 implements MigrationInterface {
  name = 'EmbeddingSpace1764350000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE documents ADD COLUMN embedding_space text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE documents DROP COLUMN IF EXISTS embedding_space`);
  }
}
