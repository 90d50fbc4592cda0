import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
const { startPostgres } = require('../infra/postgres');

/**
 * A throwaway Postgres cluster that a test can stop and start again on the same port and data
 * directory (pg_ctl), so the app under test sees a real outage and a real recovery.
 */
export interface ControllablePostgres {
  url: string;
  port: number;
  stopServer(): void;
  startServer(): void;
  /** Stops the server if running and removes the cluster. */
  destroy(): Promise<void>;
}

function pgCtl(): string {
  const base = '/usr/lib/postgresql';
  const v = fs
    .readdirSync(base)
    .filter((d) => fs.existsSync(path.join(base, d, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return path.join(base, v, 'bin', 'pg_ctl');
}

export async function startControllablePostgres(): Promise<ControllablePostgres> {
  const pg: { url: string; port: number; dir: string; stop(): Promise<void> } = await startPostgres();
  const dataDir = path.join(pg.dir, 'data');
  const isRoot = process.getuid?.() === 0;
  const run = (args: string[]) => {
    const [cmd, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', pgCtl(), ...args]] : [pgCtl(), args];
    execFileSync(cmd, argv, { stdio: 'ignore', timeout: 60000 });
  };
  let running = true;
  return {
    url: pg.url,
    port: pg.port,
    stopServer() {
      run(['stop', '-D', dataDir, '-m', 'fast', '-w']);
      running = false;
    },
    startServer() {
      // Same options as test/infra/postgres.js, same port and socket directory.
      const opts = `-p ${pg.port} -k ${pg.dir} -h 127.0.0.1 -c fsync=off -c synchronous_commit=off`;
      run(['start', '-D', dataDir, '-o', opts, '-l', path.join(pg.dir, 'restarted.log'), '-w', '-t', '60']);
      running = true;
    },
    async destroy() {
      if (running) {
        try {
          run(['stop', '-D', dataDir, '-m', 'immediate', '-w']);
        } catch {
          // already gone
        }
      }
      await pg.stop();
    },
  };
}
