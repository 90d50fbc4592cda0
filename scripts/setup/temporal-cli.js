// The Temporal CLI (dev server of the embedded defaults): built once with `go install` into
// CACHE_DIR/temporal/bin. v1.5.1 is the newest tag `go install` accepts (later go.mod files carry
// a replace directive). Used by `npm start` (scripts/start.js) and test/infra/temporal.js.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { CACHE_DIR, ProvisionError, run, withLock } = require('./common');

const VERSION = 'v1.5.1';
const MODULE = `github.com/temporalio/cli/cmd/temporal@${VERSION}`;
const BIN_DIR = path.join(CACHE_DIR, 'temporal', 'bin');
const BIN = path.join(BIN_DIR, 'temporal');

const INSTALL_HINT =
  'Install Go 1.25 or newer (https://go.dev/dl/; or your package manager if it has 1.25+), then run `npm start` again; ' +
  'or set TEMPORAL_CLI_PATH to a temporal binary, or TEMPORAL_ADDRESS to a running Temporal server.';

function hasGo() {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds the CLI into a temporary GOBIN and renames it into place, so a half-built binary is
 * never found. Synchronous (test/infra calls it outside any event loop work).
 */
function build() {
  if (!hasGo())
    throw new ProvisionError('Go was not found (needed once to build the Temporal CLI)', INSTALL_HINT);
  const tmp = `${BIN_DIR}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  try {
    run('go', ['install', MODULE], { env: { ...process.env, GOBIN: tmp, GOFLAGS: '-mod=mod' } });
    fs.mkdirSync(BIN_DIR, { recursive: true });
    fs.renameSync(path.join(tmp, 'temporal'), BIN);
  } catch (err) {
    if (err instanceof ProvisionError) throw err;
    throw new ProvisionError(
      err.message,
      `\`go install ${MODULE}\` failed. If it could not download modules, check that Go reaches its module proxy (go env GOPROXY; a proxy). ${INSTALL_HINT}`,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Installs the CLI unless present; one process at a time (cross-process lock). */
async function install({ note = () => undefined } = {}) {
  if (fs.existsSync(BIN)) return 'already installed';
  return withLock(
    'temporal-cli',
    async () => {
      if (fs.existsSync(BIN)) return 'installed by another process';
      note(`building ${MODULE} with go install (first run only; a few minutes)`);
      build();
      return `installed in ${BIN}`;
    },
    { onWait: (pid) => note(`waiting for another build (pid ${pid})`) },
  );
}

module.exports = { VERSION, BIN, BIN_DIR, INSTALL_HINT, build, install, title: `Temporal CLI ${VERSION}` };
