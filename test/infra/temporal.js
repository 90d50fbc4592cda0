// The Temporal CLI v1.5.1 built with `go install` into the cache, and `temporal server start-dev`
// on free ports with the project's search attributes.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { freePort, mkTemp, stopChild, waitForPort } = require('./util');

const temporalCli = require('../../scripts/setup/temporal-cli');

const BIN = temporalCli.BIN;
/** Generated from libs/workflow-contract (a unit test fails when the file is stale). */
const SEARCH_ATTRIBUTES_FILE = path.resolve(__dirname, '../../docker/temporal/search-attributes.txt');
const SEARCH_ATTRIBUTES = Object.fromEntries(
  fs
    .readFileSync(SEARCH_ATTRIBUTES_FILE, 'utf8')
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => line.split(':')),
);

/** The CLI built by scripts/setup/temporal-cli.js (the same one `npm start` provisions). */
function ensureInstalled() {
  if (fs.existsSync(BIN)) return BIN;
  console.log(`[infra] building the Temporal CLI ${temporalCli.VERSION} with go install (first run only)...`);
  temporalCli.build();
  return BIN;
}

/**
 * Options (fault tests restart a private server): `port` reuses a given port, `dir` reuses the
 * directory of an earlier start, `persist: true` keeps the server's state in `<dir>/temporal.db`
 * (--db-filename) so a restart on the same dir finds its workflows again. Defaults: a free port, a
 * fresh directory, in-memory state. `namespaces` are created at launch besides `default`, each with
 * the search attributes; `searchAttributes: false` registers none (a fresh server, as the compose
 * stack's starts). `stop({ keepData: true })` stops the server but keeps `dir`.
 */
async function startTemporal(opts = {}) {
  const bin = ensureInstalled();
  const port = opts.port || (await freePort());
  const dir = opts.dir || mkTemp('docqa-temporal-');
  const args = [
    'server',
    'start-dev',
    '--headless',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'warn',
  ];
  if (opts.persist) args.push('--db-filename', path.join(dir, 'temporal.db'));
  for (const ns of opts.namespaces || []) args.push('--namespace', ns);
  if (opts.searchAttributes !== false)
    for (const [k, t] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${k}=${t}`);
  const logFd = fs.openSync(path.join(dir, 'temporal.log'), 'a');
  const child = spawn(bin, args, { stdio: ['ignore', logFd, logFd], detached: true });
  await waitForPort(port);
  return {
    address: `127.0.0.1:${port}`,
    port,
    pid: child.pid,
    bin,
    dir,
    async stop({ keepData = false } = {}) {
      await stopChild(child);
      if (!keepData) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One namespace per Jest worker (JEST_WORKER_ID 1..MAX_WORKERS), so suites running at the same time
 * never share workflow ids: every suite's database numbers its accounts from 1, and docset workflow
 * ids are `docset-index/<account>/<docset>`. test/support/infra.ts picks the worker's.
 */
const MAX_WORKERS = 8;
// test/support/infra.ts names the worker's namespace the same way (`temporalNamespace`).
const workerNamespace = (workerId) => `docqa-test-${workerId}`;
function workerNamespaces() {
  return Array.from({ length: MAX_WORKERS }, (_, i) => workerNamespace(i + 1));
}

module.exports = {
  startTemporal,
  ensureInstalled,
  workerNamespace,
  workerNamespaces,
  SEARCH_ATTRIBUTES,
  BIN,
};
