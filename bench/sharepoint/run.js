#!/usr/bin/env node
// npm run bench:sharepoint -- [--files N] [--engines embedded,elasticsearch] [--window N]
//   [--children-per-run N] [--embedder minilm|hashing] [--timeout-min N] [--listing-only]
// Runs test/sources/sharepoint-library.bench.ts under the e2e project's global setup (Postgres,
// Temporal, Elasticsearch from test/infra). Options become BENCH_* variables (which also work
// directly). Results: bench/sharepoint/results-<files>.json, a Markdown table on stdout.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const OPTIONS = {
  '--files': 'BENCH_FILES',
  '--engines': 'BENCH_ENGINES',
  '--window': 'BENCH_WINDOW',
  '--children-per-run': 'BENCH_CHILDREN_PER_RUN',
  '--embedder': 'BENCH_EMBEDDER',
  '--timeout-min': 'BENCH_TIMEOUT_MIN',
  '--out': 'BENCH_OUT',
};
const env = { ...process.env };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--listing-only') env.BENCH_LISTING_ONLY = '1';
  else if (OPTIONS[a] && args[i + 1] !== undefined) env[OPTIONS[a]] = args[++i];
  else {
    console.error(`unknown option ${a}; options: ${Object.keys(OPTIONS).join(' ')} --listing-only`);
    process.exit(2);
  }
}
if (env.BENCH_TIMEOUT_MIN) env.BENCH_TIMEOUT_MS = String(Number(env.BENCH_TIMEOUT_MIN) * 60_000);
const root = path.resolve(__dirname, '../..');
const r = spawnSync(
  process.execPath,
  [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    path.join(root, 'node_modules/jest/bin/jest.js'),
    '--config',
    path.join(__dirname, 'jest.config.js'),
    '--runInBand',
  ],
  { cwd: root, env, stdio: 'inherit' },
);
process.exit(r.status ?? 1);
