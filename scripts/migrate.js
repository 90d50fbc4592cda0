#!/usr/bin/env node
// `npm run migration:run`: applies pending migrations to DATABASE_URL (or, unset, to the embedded
// PGlite database in DATA_DIR). The API also applies them at start-up.
const path = require('node:path');
const root = path.resolve(__dirname, '..');
const { loadConfig } = require(path.join(root, 'dist/libs/common/src'));
const { readEmbeddedPostgresLock, runMigrations, startEmbeddedPostgres } = require(
  path.join(root, 'dist/libs/db/src'),
);

(async () => {
  const cfg = loadConfig();
  let embedded;
  let url = cfg.databaseUrl;
  if (!url) {
    // Through the running `npm start` when there is one (it published its port), never a second open.
    const dir = path.join(cfg.dataDir, 'pglite');
    url = readEmbeddedPostgresLock(dir)?.url;
    if (!url) {
      embedded = await startEmbeddedPostgres(dir);
      url = embedded.url;
    }
  }
  try {
    const applied = await runMigrations({ url, poolSize: 1 });
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date.');
  } finally {
    await embedded?.stop();
  }
})().catch((err) => {
  console.error(`migration failed: ${err.message}`);
  process.exit(1);
});
