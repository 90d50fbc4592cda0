#!/usr/bin/env node
// Operator commands over the database (DATABASE_URL; unset: the embedded PGlite database in
// DATA_DIR: through the running `npm start` when there is one, which publishes its loopback port in
// DATA_DIR/pglite.lock, else opened directly). Each calls the lib that owns the data, from the
// build (`npm run build` first): plans through libs/accounts, never SQL here. Plans are set here,
// never by an account itself.
//
//   npm run cli -- plan set --account <id> --plan free|pro|business
//   npm run cli -- plan get --account <id>
//   npm run cli -- reembed [--account <id> [--docset <name>]] [--all]
const path = require('node:path');
const { embeddedDatabase } = require('./embedded-database');

const root = path.resolve(__dirname, '..');
// As libs/accounts' PLANS; checked here so a usage error needs no build.
const PLANS = ['free', 'pro', 'business'];
const USAGE = [
  'Usage:',
  '  npm run cli -- plan set --account <id> --plan free|pro|business',
  '  npm run cli -- plan get --account <id>',
  '  npm run cli -- reembed [--account <id> [--docset <name>]] [--all]',
  '      Writes COMPLETE documents embedded by another model into the current search index',
  '      version with the configured embedder, from their stored pages (--all: every document).',
  '',
  'Uses DATABASE_URL (unset: the embedded database in DATA_DIR, through the running npm start if any).',
].join('\n');

class UsageError extends Error {}

function parseArgs(argv) {
  const positional = [];
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') flags.help = true;
    else if (a === '--all') flags.all = true;
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
      else {
        const v = argv[i + 1];
        if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
        flags[a.slice(2)] = v;
        i++;
      }
    } else positional.push(a);
  }
  return { positional, flags };
}

function accountIdOf(flags) {
  const v = flags.account;
  if (v === undefined) throw new UsageError('--account <id> is required');
  if (!/^\d{1,9}$/.test(v))
    throw new UsageError(`--account must be an account id (a positive integer), got "${v}"`);
  return Number(v);
}

/** Configuration for a command that opens the database: DATABASE_URL, else the embedded one. */
async function withDatabaseConfig(fn) {
  const { loadConfig, withConfig } = require(path.join(root, 'dist/libs/common/src'));
  const cfg = loadConfig();
  if (cfg.database.url) return fn(withConfig(cfg, { database: { poolSize: 1 } }));
  const embedded = await embeddedDatabase();
  try {
    return await fn(withConfig(cfg, { database: { url: embedded.url, poolSize: 1 } }));
  } finally {
    await embedded.stop?.();
  }
}

/** Plans are read and set through libs/accounts (the owner of `accounts`), from the build. */
function withPlans(fn) {
  const { runPlanCommand } = require(path.join(root, 'dist/apps/api/src/accounts/plan-command'));
  return withDatabaseConfig((cfg) => runPlanCommand(cfg, fn));
}

async function plan(sub, flags) {
  if (sub === 'set') {
    const accountId = accountIdOf(flags);
    const p = flags.plan;
    if (!PLANS.includes(p)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
    return withPlans(async (plans) => {
      const row = await plans.set(accountId, p);
      if (!row) throw new Error(`No account with id ${accountId}`);
      console.log(`Account ${row.id} (${row.name}): plan ${row.previous} -> ${row.plan}`);
    });
  }
  if (sub === 'get') {
    const accountId = accountIdOf(flags);
    return withPlans(async (plans) => {
      const row = await plans.get(accountId);
      if (!row) throw new Error(`No account with id ${accountId}`);
      console.log(`Account ${row.id} (${row.name}): plan ${row.plan}`);
    });
  }
  throw new UsageError(sub ? `Unknown plan command "${sub}"` : 'plan needs a command: set or get');
}

/** The embedded engines (PGlite, the embedded search index) allow one process: the API's. */
async function withEmbeddedDatabase(cfg, fn) {
  if (cfg.database.url) return fn(cfg);
  const { withConfig } = require(path.join(root, 'dist/libs/common/src'));
  const { startEmbeddedPostgres } = require(path.join(root, 'dist/libs/db/src'));
  const embedded = await startEmbeddedPostgres(path.join(cfg.core.dataDir, 'pglite'));
  try {
    return await fn(withConfig(cfg, { database: { url: embedded.url, poolSize: 1 } }));
  } finally {
    await embedded.stop();
  }
}

async function reembed(flags) {
  const opts = { all: flags.all === true };
  if (flags.account !== undefined) opts.accountId = accountIdOf(flags);
  if (flags.docset !== undefined) {
    if (opts.accountId === undefined) throw new UsageError('--docset needs --account <id>');
    opts.docSetName = flags.docset;
  }
  const { loadConfig } = require(path.join(root, 'dist/libs/common/src'));
  const { runReembed } = require(path.join(root, 'dist/apps/worker/src/reembed-command'));
  const t0 = Date.now();
  let last = 0;
  let chunks = 0;
  opts.onDocument = ({ chunks: n, done }) => {
    chunks += n;
    if (Date.now() - last < 5000) return;
    last = Date.now();
    const s = (Date.now() - t0) / 1000;
    console.log(`[reembed] ${done} documents, ${chunks} chunks (${Math.round(chunks / s)} chunks/s)`);
  };
  const r = await withEmbeddedDatabase(loadConfig(), (cfg) => runReembed(cfg, opts));
  console.log(
    `[reembed] done: ${r.documents} documents, ${r.chunks} chunks re-embedded as ${r.space} into ${r.indexName} in ${r.seconds} s`,
  );
  if (r.changedMeanwhile)
    console.log(
      `[reembed] ${r.changedMeanwhile} documents changed meanwhile (their indexing run writes them)`,
    );
  for (const d of r.skippedDocsets) {
    console.log(
      `[reembed] skipped account ${d.accountId} docset "${d.docSetName}": an indexing run is open; run reembed again after it ends`,
    );
  }
  if (r.skippedDocsets.length) process.exitCode = 3;
}

async function main(argv) {
  const { positional, flags } = parseArgs(argv);
  const [group, sub] = positional;
  if (flags.help || !group) {
    console.log(USAGE);
    return;
  }
  if (group === 'plan') return plan(sub, flags);
  if (group === 'reembed') return reembed(flags);
  throw new UsageError(`Unknown command "${group}"`);
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError) {
    console.error(`${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  // The message only: never the connection string.
  console.error(`cli: ${err.message}`);
  process.exit(1);
});
