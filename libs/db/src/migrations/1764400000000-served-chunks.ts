import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-document swap of indexed versions (issue 16): a re-index writes the new version's chunks as
 * a new generation beside the served one, and the served one is retired only once the new one is
 * complete. `chunk_generation`/`chunk_count` describe the latest generation written (or being
 * written); `served_generation`/`served_chunk_count` the one search answers from (null: none). A
 * docset exists exactly when one of its documents has a served generation (see DOCUMENT_SERVED).
 * Chunks written before this migration are generation 0 (their ids are unchanged).
 */
export class ServedChunks1764400000000 implements MigrationInterface {
  name = 'ServedChunks1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE documents
        ADD COLUMN chunk_generation int NOT NULL DEFAULT 0,
        ADD COLUMN served_generation int,
        ADD COLUMN served_chunk_count int`);
    await q.query(`
      UPDATE documents SET served_generation = 0, served_chunk_count = coalesce(chunk_count, 0)
       WHERE status = 'COMPLETE'`);
    await q.query(`
      CREATE INDEX documents_served_docset_idx ON documents (account_id, docset_name)
       WHERE served_generation IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS documents_served_docset_idx`);
    await q.query(`
      ALTER TABLE documents
        DROP COLUMN IF EXISTS served_chunk_count,
        DROP COLUMN IF EXISTS served_generation,
        DROP COLUMN IF EXISTS chunk_generation`);
  }
}
