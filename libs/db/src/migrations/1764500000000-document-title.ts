import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The document's title from its file's metadata (a PDF's Title), kept with its pages: indexing
 * puts it into every chunk's document context (see libs/indexing document-context.ts).
 */
export class DocumentTitle1764500000000 implements MigrationInterface {
  name = 'DocumentTitle1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE documents ADD COLUMN IF NOT EXISTS title text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE documents DROP COLUMN IF EXISTS title`);
  }
}
