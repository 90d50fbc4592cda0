import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Change-feed state of one indexing run: whether it reads the feed (`changes`) or lists everything
 * (`full`), and the cursor to store in source_sync_state once the run completes, so a failed or
 * cancelled run leaves the stored cursor where it was and the next run resumes from it.
 */
export class RunSync1764200000000 implements MigrationInterface {
  name = 'RunSync1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE index_run_sync (
        run_id uuid PRIMARY KEY REFERENCES index_runs(id) ON DELETE CASCADE,
        mode text NOT NULL CHECK (mode IN ('full', 'changes')),
        next_cursor text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS index_run_sync`);
  }
}
