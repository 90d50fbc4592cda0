import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SharePoint and Google Drive sources (issue #8): the change-feed cursor (Graph delta link, Drive
 * start page token) of each docset and source scope, so a re-sync reads only what changed; the
 * source metadata of listed files (site/drive/item ids, web URL) on the way to `documents`; the
 * items a change feed reported deleted, per run; and lookups by source item id.
 */
export class SourceSync1764100000000 implements MigrationInterface {
  name = 'SourceSync1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE source_sync_state (
        account_id int NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        docset_name text NOT NULL,
        source_type text NOT NULL CHECK (source_type IN ('S3','SHAREPOINT','GOOGLEDRIVE')),
        scope text NOT NULL,
        cursor text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, docset_name, source_type, scope)
      )`);
    await q.query(`ALTER TABLE index_run_listing ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await q.query(`
      CREATE TABLE index_run_removals (
        run_id uuid NOT NULL REFERENCES index_runs(id) ON DELETE CASCADE,
        item_id text NOT NULL,
        PRIMARY KEY (run_id, item_id)
      )`);
    await q.query(
      `CREATE INDEX documents_source_item_idx ON documents (account_id, docset_name, source_type, (source_metadata->>'itemId'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS documents_source_item_idx`);
    await q.query(`DROP TABLE IF EXISTS index_run_removals`);
    await q.query(`ALTER TABLE index_run_listing DROP COLUMN IF EXISTS metadata`);
    await q.query(`DROP TABLE IF EXISTS source_sync_state`);
  }
}
