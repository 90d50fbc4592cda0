import { spawnSync } from 'node:child_process';
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

  it('npm run migration:run applies them to the embedded database of DATA_DIR, then finds it up to date, and never opens a database another process is opening', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-migrate-'));
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
    delete env.DATABASE_URL;
    const migrate = () => {
      const r = spawnSync(process.execPath, [path.resolve(__dirname, '../../scripts/migrate.js')], {
        env,
        encoding: 'utf8',
        timeout: 120_000,
      });
      return { code: r.status, out: `${r.stdout}${r.stderr}` };
    };
    try {
      const first = migrate();
      expect(first).toEqual({ code: 0, out: expect.stringContaining('Applied: ') });
      expect(first.out.match(/Applied: (.*)/)![1].split(', ')).toHaveLength(MIGRATIONS.length);
      expect(migrate()).toEqual({ code: 0, out: expect.stringContaining('Database is up to date.') });
      // A live process (this test's) holds the lock and has published no port yet: it is opening the database.
      fs.writeFileSync(
        path.join(dataDir, 'pglite.lock'),
        JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }),
      );
      const busy = migrate();
      expect(busy.code).toBe(1);
      expect(busy.out).toMatch(
        /migration failed: the embedded database .*pglite is being opened by process \d+; try again/,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
