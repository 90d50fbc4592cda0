import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { MIGRATIONS, runMigrations, startEmbeddedPostgres } from '@docqa/db';
import { createTestDatabase } from '../support/infra';

const EXPECTED_TABLES = [
  'account_users',
  'accounts',
  'api_tokens',
  'chatbot_keys',
  'document_pages',
  'documents',
  'index_runs',
  'mail_outbox',
  'rate_limit_windows',
  'users',
];

async function tables(url: string): Promise<string[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'migrations' ORDER BY 1`,
    );
    return rows.map((r) => r.table_name as string);
  } finally {
    await c.end();
  }
}

describe('migrations', () => {
  it('apply on an empty Postgres database, once', async () => {
    const url = await createTestDatabase('mig');
    const first = await runMigrations({ url, poolSize: 2 });
    expect(first).toHaveLength(MIGRATIONS.length);
    expect(await tables(url)).toEqual(expect.arrayContaining(EXPECTED_TABLES));
    expect(await runMigrations({ url, poolSize: 2 })).toEqual([]);
  });

  it('apply on the embedded PGlite database through the same pg driver', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-pglite-'));
    const pg = await startEmbeddedPostgres(path.join(dir, 'db'));
    try {
      const applied = await runMigrations({ url: pg.url, poolSize: 1 });
      expect(applied).toHaveLength(MIGRATIONS.length);
      expect(await tables(pg.url)).toEqual(expect.arrayContaining(EXPECTED_TABLES));
    } finally {
      await pg.stop();
    }
    // The data survives a restart of the embedded server.
    const again = await startEmbeddedPostgres(path.join(dir, 'db'));
    try {
      expect(await runMigrations({ url: again.url, poolSize: 1 })).toEqual([]);
    } finally {
      await again.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
