// The Temporal CLI v1.5.1 built with `go install` into the cache, and `temporal server start-dev`
// on free ports with the project's search attributes.
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { CACHE_DIR, freePort, mkTemp, stopChild, waitForPort } = require('./util');

const VERSION = 'v1.5.1';
const BIN_DIR = path.join(CACHE_DIR, 'temporal', 'bin');
const BIN = path.join(BIN_DIR, 'temporal');
// Keep in sync with libs/common/src/temporal/temporal.constants.ts (a unit test checks it).
const SEARCH_ATTRIBUTES = {
  DocqaAccountId: 'Keyword',
  DocqaDocSetName: 'Keyword',
  DocqaSourceType: 'Keyword',
};

function ensureInstalled() {
  if (fs.existsSync(BIN)) return BIN;
  console.log(`[infra] building the Temporal CLI ${VERSION} with go install (first run only)...`);
  fs.mkdirSync(BIN_DIR, { recursive: true });
  execFileSync('go', ['install', `github.com/temporalio/cli/cmd/temporal@${VERSION}`], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: BIN_DIR, GOFLAGS: '-mod=mod' },
  });
  return BIN;
}

async function startTemporal() {
  const bin = ensureInstalled();
  const port = await freePort();
  const dir = mkTemp('docqa-temporal-');
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
    async stop() {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { startTemporal, ensureInstalled, SEARCH_ATTRIBUTES, BIN };
