// jemalloc (Debian's libjemalloc2), which `npm start` runs the product on where it is installed
// (scripts/setup/allocator.js): installed here so the e2e suites run the product as users with the
// package do, and the allocator's tests have it.
const { aptInstall } = require('./util');
const fs = require('node:fs');
const { JEMALLOC_PATHS } = require('../../scripts/setup/allocator');

function jemallocPath() {
  return JEMALLOC_PATHS.find((p) => fs.existsSync(p)) ?? null;
}

function ensureInstalled() {
  const present = jemallocPath();
  if (present) return present;
  aptInstall('libjemalloc2');
  const lib = jemallocPath();
  if (!lib) throw new Error('libjemalloc2 installation did not provide libjemalloc.so.2');
  return lib;
}

module.exports = { ensureInstalled, jemallocPath };
