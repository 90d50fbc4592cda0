#!/usr/bin/env node
// `npm run migration:run`: applies pending migrations to DATABASE_URL (or, unset, to the embedded
// PGlite database in DATA_DIR). The API also applies them at start-up.
const path = require('node:path');
const root = path.resolve(__dirname, '..');
const { loadConfig } = require(path.join(root, 'dist/libs/common/src'));
const { runMigrations } = require(path.join(root, 'dist/libs/db/src'));
const { embeddedDatabase } = require('./embedded-database');

(async () => {
  const cfg = loadConfig();
  let embedded;
  let url = cfg.database.url;
  if (!url) {
    // Through the running `npm start` when there is one (it published its port), never a second open.
    embedded = await embeddedDatabase();
    url = embedded.url;
  }
  try {
    const applied = await runMigrations({ url, poolSize: 1 });
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date.');
  } finally {
    await embedded?.stop?.();
  }
})().catch((err) => {
  console.error(`migration failed: ${err.message}`);
  process.exit(1);
});
