// Schemathesis (property-based API testing from the OpenAPI document), installed from PyPI into a
// virtualenv cached under ~/.cache/docqa/schemathesis-venv/<version> (the same pattern as moto in
// s3.js). `node test/infra/schemathesis.js` installs it ahead of time and prints the binary.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { CACHE_DIR } = require('./util');

const VERSION = '4.32.5';
const VENV = path.join(CACHE_DIR, 'schemathesis-venv', VERSION);
const BIN = path.join(VENV, 'bin', 'schemathesis');

function python() {
  for (const candidate of ['python3', 'python']) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new Error('python3 is required for schemathesis; install python3 and python3-venv');
}

function ensureInstalled() {
  if (fs.existsSync(BIN)) return BIN;
  console.log(`[infra] installing schemathesis ${VERSION} into ${VENV} (first run only)...`);
  fs.rmSync(VENV, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(VENV), { recursive: true });
  execFileSync(python(), ['-m', 'venv', VENV], { stdio: 'inherit' });
  execFileSync(
    path.join(VENV, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${VERSION}`],
    { stdio: 'inherit' },
  );
  if (!fs.existsSync(BIN)) throw new Error(`schemathesis installation did not provide ${BIN}`);
  return BIN;
}

module.exports = { ensureInstalled, VERSION, BIN };

if (require.main === module) console.log(ensureInstalled());
