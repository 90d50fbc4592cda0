import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a filing says about itself (company, form, period; libs/text filing.ts), read from its
 * first pages at indexing time and shown in /documents/metadata. NULL for documents that are no
 * filing.
 */
export class DocumentFiling1764700000000 implements MigrationInterface {
  name = 'DocumentFiling1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE documents ADD COLUMN IF NOT EXISTS filing jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE documents DROP COLUMN IF EXISTS filing`);
  }
}
