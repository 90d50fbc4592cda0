// A throwaway PostgreSQL cluster from Debian's postgresql package, owned by the `postgres` OS
// user (the server refuses to run as root), on a free port, removed on stop.
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { aptInstall, freePort, mkTemp, stopChild, waitForPort } = require('./util');

function pgBinDir() {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return null;
  const versions = fs
    .readdirSync(base)
    .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0], 'bin') : null;
}

function ensureInstalled() {
  if (pgBinDir()) return;
  aptInstall('postgresql');
  if (!pgBinDir()) throw new Error('postgresql installation did not provide initdb');
}

function asPostgres(cmd, args, opts = {}) {
  const isRoot = process.getuid && process.getuid() === 0;
  return isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args], opts] : [cmd, args, opts];
}

/**
 * Options (fault tests restart a private server): `port` reuses a given port, `dir` reuses a
 * directory of an earlier start (its cluster is kept, initdb skipped). Defaults: a free port and a
 * fresh throwaway directory. `stop({ keepData: true })` stops the server but keeps `dir`.
 */
async function startPostgres(opts = {}) {
  ensureInstalled();
  const bin = pgBinDir();
  const dir = opts.dir || mkTemp('docqa-pg-');
  fs.chmodSync(dir, 0o777);
  const dataDir = path.join(dir, 'data');
  const isRoot = process.getuid && process.getuid() === 0;
  if (isRoot) execFileSync('chown', ['postgres:postgres', dir]);
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION')))
    execFileSync(
      ...asPostgres(
        path.join(bin, 'initdb'),
        ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
        {
          stdio: 'ignore',
        },
      ),
    );
  const port = opts.port || (await freePort());
  const [cmd, args] = asPostgres(path.join(bin, 'postgres'), [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-k',
    dir,
    '-h',
    '127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=300',
  ]);
  const logFd = fs.openSync(path.join(dir, 'postgres.log'), 'a');
  const child = spawn(cmd, args, { stdio: ['ignore', logFd, logFd], detached: true });
  await waitForPort(port);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  // The port opens slightly before connections are accepted.
  await waitForQuery(url);
  return {
    url,
    port,
    pid: child.pid,
    dir,
    async stop({ keepData = false } = {}) {
      // Fast shutdown (SIGINT to the postmaster: sessions are ended, a clean checkpoint is written),
      // so a restart on the same data dir finds no stale postmaster.pid. SIGTERM to the group would
      // be a smart shutdown that waits for the clients, then a SIGKILL.
      if (keepData) await fastShutdown(dataDir);
      await stopChild(child);
      if (!keepData) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function fastShutdown(dataDir, timeoutMs = 30000) {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  let pid;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  const deadline = Date.now() + timeoutMs;
  while (fs.existsSync(pidFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

async function waitForQuery(url, timeoutMs = 30000) {
  const { Client } = require('pg');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = new Client({ connectionString: url });
    try {
      await c.connect();
      await c.query('SELECT 1');
      await c.end();
      return;
    } catch (err) {
      await c.end().catch(() => undefined);
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

module.exports = { startPostgres, ensureInstalled };
