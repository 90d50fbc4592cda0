import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexing runs (issue #5): the staged source listing of a run, which the planner diffs against
 * `documents` in one set-based statement (so workflow payloads carry counts and ids, never the
 * listing), and the index the run's child scheduler pages through.
 */
export class Indexing1763900000000 implements MigrationInterface {
  name = 'Indexing1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE index_run_listing (
        run_id uuid NOT NULL REFERENCES index_runs(id) ON DELETE CASCADE,
        source_id text NOT NULL,
        path text NOT NULL,
        file_name text NOT NULL,
        file_type text NOT NULL,
        etag text,
        size_bytes bigint NOT NULL DEFAULT 0,
        last_modified timestamptz,
        PRIMARY KEY (run_id, source_id)
      )`);
    await q.query(`CREATE INDEX documents_last_run_status_idx ON documents (last_run_id, status, id)`);
    await q.query(
      `CREATE INDEX index_runs_account_docset_idx ON index_runs (account_id, docset_name, created_at DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS index_runs_account_docset_idx`);
    await q.query(`DROP INDEX IF EXISTS documents_last_run_status_idx`);
    await q.query(`DROP TABLE IF EXISTS index_run_listing`);
  }
}
