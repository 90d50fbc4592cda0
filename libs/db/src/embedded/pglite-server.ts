import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * Published next to the PGlite directory (`<dir>.lock`, i.e. DATA_DIR/pglite.lock) while a
 * process has it open: who holds it, and once it serves, the loopback URL other local tools (the
 * operator CLI, `npm run migration:run`) use instead of opening the directory a second time.
 */
export interface EmbeddedPostgresLock {
  pid: number;
  /** `postgres://...@127.0.0.1:<port>/postgres`; absent while the database is still opening. */
  url?: string;
  startedAt: string;
}

/** Another live process has the embedded database open. */
export class EmbeddedDatabaseBusyError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: EmbeddedPostgresLock,
  ) {
    super(
      `The embedded database ${dir} is in use by process ${holder.pid} (a running \`npm start\` or operator ` +
        'command). Stop that process first; two processes must never open one PGlite directory. If no such ' +
        `process is DocQA, remove ${embeddedLockPath(dir)}.`,
    );
    this.name = 'EmbeddedDatabaseBusyError';
  }
}

export function embeddedLockPath(dir: string): string {
  return `${path.resolve(dir)}.lock`;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): EmbeddedPostgresLock | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as EmbeddedPostgresLock;
    return Number.isInteger(v?.pid) && v.pid > 0 ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A lock held by another live process. A lock whose process is gone (killed with -9, crashed) is
 * stale, and so is one naming this very process (a restarted container's PID 1 finds its previous
 * incarnation's lock): both are taken over. Directories this process opened are tracked in memory.
 */
function liveHolder(file: string): EmbeddedPostgresLock | undefined {
  const held = readLock(file);
  return held && held.pid !== process.pid && processAlive(held.pid) ? held : undefined;
}

/** The running holder of the embedded database in `dir` (with its URL once it serves), if any. */
export function readEmbeddedPostgresLock(dir: string): EmbeddedPostgresLock | undefined {
  return liveHolder(embeddedLockPath(dir));
}

const openHere = new Set<string>();

/** Takes the lock (create-exclusive), taking over a stale one; throws EmbeddedDatabaseBusyError. */
function acquireLock(dir: string): string {
  const file = embeddedLockPath(dir);
  const mine = (): EmbeddedPostgresLock => ({ pid: process.pid, startedAt: new Date().toISOString() });
  if (openHere.has(file)) throw new EmbeddedDatabaseBusyError(dir, mine());
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(mine()), { flag: 'wx', mode: 0o600 });
      openHere.add(file);
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = liveHolder(file);
    if (holder) throw new EmbeddedDatabaseBusyError(dir, holder);
    // Stale: move it aside atomically, so two processes taking over at once cannot both win; if
    // what was moved is not the stale lock read above, another process took over first.
    const stale = readLock(file);
    const aside = `${file}.${process.pid}.stale`;
    try {
      fs.renameSync(file, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    const moved = readLock(aside);
    if (moved && stale && moved.pid !== stale.pid && processAlive(moved.pid)) {
      try {
        fs.linkSync(aside, file);
      } catch {
        // whoever holds the lock now keeps it
      }
      fs.rmSync(aside, { force: true });
      throw new EmbeddedDatabaseBusyError(dir, moved);
    }
    fs.rmSync(aside, { force: true });
  }
  throw new EmbeddedDatabaseBusyError(dir, readLock(file) ?? mine());
}

function releaseLock(file: string): void {
  openHere.delete(file);
  if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
}

/**
 * The thread that owns PGlite. PGlite is Postgres compiled to WASM and runs each statement
 * synchronously on the thread that holds it; on the service's main thread a heavy statement (a
 * docset's cascade delete, a progress count over a large run) stops every request, heartbeat and
 * log line until it ends. Here it stops only this thread; the service reaches it over the socket.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let db, server;
const failed = (err) => String((err && err.message) || err);
(async () => {
  try {
    const { PGlite } = require(workerData.pglitePath);
    const { PGLiteSocketServer } = require(workerData.socketPath);
    db = await PGlite.create({ dataDir: workerData.dir });
    server = new PGLiteSocketServer({ db, port: workerData.port, host: workerData.host, maxConnections: 4 });
    await server.start();
    parentPort.postMessage({ type: 'ready', conn: server.getServerConn() });
  } catch (err) {
    if (db) await db.close().catch(() => undefined);
    parentPort.postMessage({ type: 'failed', message: failed(err) });
  }
})();
parentPort.on('message', async (m) => {
  if (m !== 'stop') return;
  let error;
  try {
    if (server) await server.stop();
  } catch (err) {
    error = failed(err);
  }
  try {
    if (db) await db.close();
  } catch (err) {
    error = error || failed(err);
  }
  parentPort.postMessage({ type: 'stopped', error });
  parentPort.close();
});
`;

type ThreadMessage =
  { type: 'ready'; conn: string } | { type: 'failed'; message: string } | { type: 'stopped'; error?: string };

export interface EmbeddedPostgresOptions {
  port?: number;
  host?: string;
  /**
   * Called once if the database thread ends while the service still uses it (a WASM abort, for
   * one): every query fails from then on, so the caller should stop the service rather than run
   * on without its database.
   */
  onUnexpectedExit?: (reason: string) => void;
}

/**
 * The embedded default database: PGlite on disk in `dir`, in a thread of its own, served over the
 * Postgres wire protocol by pglite-socket on a loopback port so the same `pg` driver, TypeORM and
 * migrations run as in production. Only one process may open `dir`: a lock file next to it says
 * which one, and publishes the URL so local tools connect to the running process instead of
 * opening the directory again (which corrupts it).
 */
export async function startEmbeddedPostgres(
  dir: string,
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  const { port = 0, host = '127.0.0.1', onUnexpectedExit } = options;
  fs.mkdirSync(path.dirname(path.resolve(dir)), { recursive: true });
  const lock = acquireLock(dir);
  let thread: Worker | undefined;
  try {
    // PGlite is one session: the app uses a pool of 1 (see dataSourceOptions), the spare
    // connections are for tools such as psql, the operator CLI and `npm run migration:run`
    // (pglite-socket runs one connection's transaction at a time).
    const started = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: {
        dir,
        port,
        host,
        pglitePath: require.resolve('@electric-sql/pglite'),
        socketPath: require.resolve('@electric-sql/pglite-socket'),
      },
    });
    thread = started;
    const conn = await new Promise<string>((resolve, reject) => {
      started.once('message', (m: ThreadMessage) =>
        m.type === 'ready'
          ? resolve(m.conn)
          : reject(
              new Error(`The embedded database did not open: ${m.type === 'failed' ? m.message : m.type}`),
            ),
      );
      started.once('error', (err) => reject(new Error(`The embedded database did not open: ${err.message}`)));
      started.once('exit', (code) =>
        reject(new Error(`The embedded database did not open (its thread exited with ${code})`)),
      );
    });
    const url = `postgres://postgres:postgres@${conn}/postgres?sslmode=disable`;
    const published: EmbeddedPostgresLock = { pid: process.pid, url, startedAt: new Date().toISOString() };
    fs.writeFileSync(`${lock}.tmp`, JSON.stringify(published), { mode: 0o600 });
    fs.renameSync(`${lock}.tmp`, lock);

    let stopping: Promise<void> | undefined;
    let exited = false;
    let lastError: string | undefined;
    started.removeAllListeners();
    started.on('error', (err) => (lastError = err.message));
    started.on('exit', (code) => {
      exited = true;
      if (stopping) return;
      releaseLock(lock);
      onUnexpectedExit?.(lastError ?? `its thread exited with ${code}`);
    });
    return {
      url,
      stop() {
        stopping ??= new Promise<void>((resolve, reject) => {
          if (exited) return resolve();
          started.removeAllListeners();
          const done = (error?: string) => {
            releaseLock(lock);
            if (error) reject(new Error(`The embedded database did not close cleanly: ${error}`));
            else resolve();
          };
          started.on('message', (m: ThreadMessage) => m.type === 'stopped' && done(m.error));
          started.on('error', (err) => done(err.message));
          started.on('exit', () => done());
          started.postMessage('stop');
        });
        return stopping;
      },
    };
  } catch (err) {
    await thread?.terminate().catch(() => undefined);
    releaseLock(lock);
    throw err;
  }
}
