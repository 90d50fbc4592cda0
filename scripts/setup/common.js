// Shared helpers of the first-run provisioning (`npm start`, `npm run models:install`, the e2e
// setup): the cache directory, timed progress lines, a cross-process lock, checksums, and the
// error type that tells the user exactly what to install. Plain CommonJS: it runs before any build.
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** ~/.cache/docqa (DOCQA_CACHE_DIR overrides): models, the converter's venv, wheels, engines. */
const CACHE_DIR = process.env.DOCQA_CACHE_DIR || path.join(os.homedir(), '.cache', 'docqa');

/** A step that cannot be done here; `hint` says what to install or set, in one or two lines. */
class ProvisionError extends Error {
  constructor(message, hint) {
    super(message);
    this.name = 'ProvisionError';
    this.hint = hint;
  }
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs one provisioning step and prints `[setup] <label>: <outcome> (<time>)`. `fn` returns a short
 * outcome ("already installed", "built"); a line is printed before long work by `fn` itself
 * through `note`. Errors are rethrown after a failure line.
 */
async function step(label, fn, { log = console.log } = {}) {
  const t0 = Date.now();
  const note = (msg) => log(`[setup] ${label}: ${msg}...`);
  try {
    const outcome = await fn(note);
    log(`[setup] ${label}: ${outcome} (${seconds(Date.now() - t0)})`);
    return outcome;
  } catch (err) {
    log(`[setup] ${label}: FAILED after ${seconds(Date.now() - t0)}: ${err.message}`);
    throw err;
  }
}

function sha256File(file) {
  const h = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    let n;
    while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) h.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Cross-process lock on `CACHE_DIR/locks/<name>` (a directory, created atomically), so two
 * processes (npm start, a test run, another checkout) never build into the cache at once. A lock
 * whose owner died is taken over.
 */
async function withLock(name, fn, { waitMs = 30 * 60_000, onWait } = {}) {
  const dir = path.join(CACHE_DIR, 'locks', `${name}.lock`);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const deadline = Date.now() + waitMs;
  let waited = false;
  for (;;) {
    try {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let owner = NaN;
      try {
        owner = Number(fs.readFileSync(path.join(dir, 'pid'), 'utf8'));
      } catch {
        // the owner is between mkdir and writing its pid
      }
      const stale =
        (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) ||
        (!Number.isInteger(owner) && Date.now() - fs.statSync(dir).mtimeMs > 60_000);
      if (stale) {
        fs.rmSync(dir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the lock ${dir}`);
      if (!waited) onWait?.(owner);
      waited = true;
      await sleep(1000);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** First python3 that has venv + ensurepip, or a ProvisionError saying what to install. */
function findPython(purpose) {
  for (const candidate of ['python3', 'python']) {
    try {
      execFileSync(candidate, ['-c', 'import sys, venv, ensurepip; assert sys.version_info >= (3, 10)'], {
        stdio: 'ignore',
      });
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new ProvisionError(
    `Python 3.10+ with venv was not found (needed once ${purpose})`,
    'Install python3 and python3-venv (Debian/Ubuntu: apt-get install python3 python3-venv; macOS: brew install python).',
  );
}

/** Runs a command, returning stdout; on failure the error carries the command's last stderr lines. */
function run(cmd, args, opts = {}) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  } catch (err) {
    const tail = String(err.stderr || err.message)
      .trim()
      .split('\n')
      .slice(-3)
      .join(' | ');
    const e = new Error(`${path.basename(cmd)} ${args[0] ?? ''} failed: ${tail}`);
    e.stderr = String(err.stderr || '');
    throw e;
  }
}

module.exports = { CACHE_DIR, ProvisionError, step, seconds, sha256File, withLock, findPython, run };
