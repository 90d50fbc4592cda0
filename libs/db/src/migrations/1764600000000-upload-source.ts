import { MigrationInterface, QueryRunner } from 'typeorm';

/** Documents may come from the upload store (source type UPLOAD, POST /index/upload). */
export class UploadSource1764600000000 implements MigrationInterface {
  name = 'UploadSource1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE documents DROP CONSTRAINT IF EXISTS documents_source_type_check`);
    await q.query(
      `ALTER TABLE documents ADD CONSTRAINT documents_source_type_check
         CHECK (source_type IN ('S3','SHAREPOINT','GOOGLEDRIVE','UPLOAD'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM documents WHERE source_type = 'UPLOAD'`);
    await q.query(`ALTER TABLE documents DROP CONSTRAINT IF EXISTS documents_source_type_check`);
    await q.query(
      `ALTER TABLE documents ADD CONSTRAINT documents_source_type_check
         CHECK (source_type IN ('S3','SHAREPOINT','GOOGLEDRIVE'))`,
    );
  }
}
