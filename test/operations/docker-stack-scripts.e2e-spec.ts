import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SEARCH_ATTRIBUTES } from '@docqa/workflow-contract';
import { startTestApp, TestApp } from '../support/app';
import { DOCKER, run } from './docker-files';
const { freePort } = require('../infra/util');
const { startPostgres } = require('../infra/postgres');
const { startTemporal } = require('../infra/temporal');

// The stack's scripts, run for real against this machine's engines (its files:
// docker.e2e-spec.ts).

describe('stack scripts', () => {
  it('registers the search attributes on a fresh Temporal server, idempotently', async () => {
    const server = await startTemporal({ searchAttributes: false });
    const { bin: cli, port } = server;
    try {
      // The admin-tools image has `temporal` on PATH; here it is the cached CLI.
      const binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bin-'));
      fs.symlinkSync(cli, path.join(binDir, 'temporal'));
      const env = {
        PATH: `${binDir}:${process.env.PATH}`,
        HOME: process.env.HOME ?? os.homedir(),
        REGISTER_TRIES: '30',
        TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
        TEMPORAL_NAMESPACE: 'default',
      };
      const script = path.join(DOCKER, 'temporal/register-search-attributes.sh');
      const first = await run('sh', [script], { env });
      for (const name of Object.keys(SEARCH_ATTRIBUTES))
        expect(first.stdout).toContain(`search attribute ${name} (Keyword) registered`);
      const second = await run('sh', [script], { env });
      for (const name of Object.keys(SEARCH_ATTRIBUTES))
        expect(second.stdout).toContain(`search attribute ${name} already registered`);
      const { stdout } = await run(cli, [
        'operator',
        'search-attribute',
        'list',
        '--address',
        `127.0.0.1:${port}`,
        '--namespace',
        'default',
      ]);
      for (const name of Object.keys(SEARCH_ATTRIBUTES))
        expect(stdout).toMatch(new RegExp(`${name}\\s+Keyword`));
    } finally {
      await server.stop();
    }
  });

  it('creates the Temporal database role on a fresh Postgres volume', async () => {
    const pg = await startPostgres();
    try {
      const psqlDir = path.dirname(
        execFileSync('sh', ['-c', 'ls /usr/lib/postgresql/*/bin/psql | sort -V | tail -1']).toString().trim(),
      );
      const env = {
        PATH: `${psqlDir}:${process.env.PATH}`,
        PGHOST: '127.0.0.1',
        PGPORT: String(pg.port),
        POSTGRES_USER: 'postgres',
        POSTGRES_DB: 'postgres',
        TEMPORAL_DB_PASSWORD: "it's-a-secret",
      };
      await run('sh', [path.join(DOCKER, 'postgres/10-temporal-role.sh')], { env });
      const { stdout } = await run(
        'psql',
        [
          '-U',
          'postgres',
          '-d',
          'postgres',
          '-tAc',
          "SELECT rolcanlogin, rolcreatedb FROM pg_roles WHERE rolname = 'temporal'",
        ],
        { env },
      );
      expect(stdout.trim()).toBe('t|t');
    } finally {
      await pg.stop();
    }
  });

  describe('container health checks', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp();
    });
    afterAll(async () => {
      await app?.close();
    });

    const check = (role: string, env: Record<string, string>) =>
      run('node', [path.join(DOCKER, 'healthcheck.js'), role], {
        env: { PATH: process.env.PATH, ...env },
      }).then(
        () => 0,
        (err: { code: number }) => err.code,
      );

    it('api: readiness over HTTPS; worker: liveness on the metrics port; 1 when nothing answers', async () => {
      expect(await check('api', { HTTPS_PORT: String(app.api.httpsPort), DATA_DIR: app.dataDir })).toBe(0);
      expect(await check('worker', { METRICS_PORT: String(app.api.metricsPort) })).toBe(0);
      const closed = String(await freePort());
      expect(await check('api', { HTTPS_PORT: closed, DATA_DIR: app.dataDir })).toBe(1);
      expect(await check('worker', { METRICS_PORT: closed })).toBe(1);
    });
  });
});
