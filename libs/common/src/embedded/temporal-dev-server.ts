import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { SEARCH_ATTRIBUTES } from '@docqa/workflow-contract';
import { docqaCacheDir } from './cache-dir';
import { findOnPath, parentBound } from './parent-bound';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
/** Where `npm start` (scripts/setup/temporal-cli.js) and test/infra build the CLI. */
export const TEMPORAL_CACHE_BIN = path.join(docqaCacheDir(), 'temporal', 'bin', 'temporal');

export const TEMPORAL_INSTALL_HINT =
  `The Temporal CLI was not found. \`npm start\` builds it on first run (needs Go 1.25+); by hand:\n` +
  `  GOBIN=${path.dirname(TEMPORAL_CACHE_BIN)} go install github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}\n` +
  `or set TEMPORAL_CLI_PATH, or point TEMPORAL_ADDRESS at a Temporal server.`;

/** TEMPORAL_CLI_PATH, then `temporal` on PATH, then the cache test/infra fills. */
export function findTemporalCli(explicit?: string): string | null {
  if (explicit) return fs.existsSync(explicit) ? explicit : null;
  return findOnPath('temporal') ?? (fs.existsSync(TEMPORAL_CACHE_BIN) ? TEMPORAL_CACHE_BIN : null);
}

export interface TemporalDevServer {
  address: string;
  uiUrl: string | null;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function waitForPort(port: number, host = '127.0.0.1', timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const sock = net.connect(port, host);
      sock.once('connect', () => {
        sock.destroy();
        resolve();
      });
      sock.once('error', () => {
        sock.destroy();
        if (Date.now() > deadline)
          reject(new Error(`port ${host}:${port} did not open within ${timeoutMs} ms`));
        else setTimeout(attempt, 200);
      });
    };
    attempt();
  });
}

export function stopChild(child: ChildProcess, graceMs = 10000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export interface TemporalDevServerOptions {
  cliPath: string;
  port: number;
  uiPort?: number | null;
  dbFile?: string | null;
  namespace?: string;
  logFile?: string;
}

/** Spawns `temporal server start-dev` with the project's search attributes and waits for it. */
export async function startTemporalDevServer(o: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(o.port), '--log-level', 'warn'];
  if (o.uiPort) args.push('--ui-port', String(o.uiPort));
  else args.push('--headless');
  if (o.dbFile) {
    fs.mkdirSync(path.dirname(o.dbFile), { recursive: true });
    args.push('--db-filename', o.dbFile);
    // Write-ahead log, still synced at every commit (issue 17): SQLite's default rollback journal
    // writes, syncs and deletes a journal file for every history append, and the dev server's one
    // connection serialises them, which bound indexing of small files (1,000 files: 8.4 -> 17.5
    // files/s, docs/benchmarks/sharepoint.md). synchronous=full keeps a committed append durable
    // across an OS crash, as the rollback journal did.
    args.push('--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=full');
  }
  if (o.namespace && o.namespace !== 'default') args.push('--namespace', o.namespace);
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES))
    args.push('--search-attribute', `${name}=${type}`);
  const out = o.logFile ? fs.openSync(o.logFile, 'a') : 'ignore';
  // Bound to this process: a product killed by a signal must not leave the server holding its port.
  const cmd = parentBound(o.cliPath, args);
  const child = spawn(cmd.file, cmd.args, { stdio: ['ignore', out, out], detached: false });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`temporal server start-dev exited with code ${code}`))),
  );
  exited.catch(() => undefined);
  await Promise.race([waitForPort(o.port), exited]);
  return {
    address: `127.0.0.1:${o.port}`,
    uiUrl: o.uiPort ? `http://localhost:${o.uiPort}` : null,
    process: child,
    stop: () => stopChild(child),
  };
}
