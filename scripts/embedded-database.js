// The embedded database (PGlite in DATA_DIR/pglite) for the operator scripts (cli.js, migrate.js),
// which run beside or without a running `npm start`. Needs `npm run build` done.
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/**
 * The embedded database's URL: the running service's published loopback port when one holds the
 * lock (its changes are then seen at once), else the directory opened here under the same lock
 * (`stop` closes it). Never a second open of a directory another process has open.
 */
async function embeddedDatabase() {
  const { loadConfig } = require(path.join(root, 'dist/libs/common/src'));
  const { readEmbeddedPostgresLock, startEmbeddedPostgres } = require(path.join(root, 'dist/libs/db/src'));
  const dir = path.join(loadConfig().core.dataDir, 'pglite');
  const running = readEmbeddedPostgresLock(dir);
  if (running) {
    if (!running.url)
      throw new Error(
        `the embedded database ${dir} is being opened by process ${running.pid}; try again in a moment`,
      );
    console.error(`Using the embedded database of the running DocQA (process ${running.pid}).`);
    return { url: running.url };
  }
  return startEmbeddedPostgres(dir);
}

module.exports = { embeddedDatabase };
