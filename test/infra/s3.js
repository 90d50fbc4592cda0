// A local S3-compatible server for the e2e tests: moto's server (a real S3 wire-protocol
// implementation: SigV4-signed REST calls, ListObjectsV2 paging with continuation tokens, ETags),
// installed from PyPI into a virtualenv cached under ~/.cache/docqa/moto/<version>, started on a
// free port and stopped with the run. State is in memory; each suite uses its own bucket.
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { CACHE_DIR, freePort, mkTemp, stopChild, waitForPort } = require('./util');

const VERSION = '5.2.5';
const VENV = path.join(CACHE_DIR, 'moto', VERSION);
const BIN = path.join(VENV, 'bin', 'moto_server');

function python() {
  for (const candidate of ['python3', 'python']) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new Error('python3 is required for the local S3 server (moto); install python3 and python3-venv');
}

function ensureInstalled() {
  if (fs.existsSync(BIN)) return BIN;
  console.log(`[infra] installing moto ${VERSION} (local S3 server) into ${VENV} (first run only)...`);
  fs.rmSync(VENV, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(VENV), { recursive: true });
  execFileSync(python(), ['-m', 'venv', VENV], { stdio: 'inherit' });
  execFileSync(
    path.join(VENV, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', `moto[server]==${VERSION}`],
    { stdio: 'inherit' },
  );
  if (!fs.existsSync(BIN)) throw new Error(`moto installation did not provide ${BIN}`);
  return BIN;
}

async function startS3() {
  const bin = ensureInstalled();
  const port = await freePort();
  const dir = mkTemp('docqa-s3-');
  const logFd = fs.openSync(path.join(dir, 's3.log'), 'a');
  const child = spawn(bin, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', logFd, logFd],
    detached: true,
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  await waitForPort(port);
  await waitForHttp(`http://127.0.0.1:${port}/`);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    dir,
    async stop() {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForHttp(url, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

module.exports = { startS3, ensureInstalled, VERSION };
