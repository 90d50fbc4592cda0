// Model installer: one small module per model kind (scripts/models/<kind>.js), dispatched by name.
//
//   npm run models:install                 # the default kinds (the local embedders)
//   npm run models:install -- bge-small    # named kinds (embedder: all-MiniLM-L6-v2, bge-small: the default)
//   npm run models:install -- llm          # the local generative model (1.1 GB; not a default kind)
//   npm run models:install -- --force      # rebuild even when installed
//   npm run models:install -- --status     # print what is installed, install nothing
//
// A kind module exports { kind, title, status(): { installed, reason? }, install({ force, note }) }
// and caches under ~/.cache/docqa (DOCQA_CACHE_DIR). Add a kind by adding a file and a line below.
const { ProvisionError, step } = require('../setup/common');

const KINDS = {
  embedder: require('./embedder'),
  'bge-small': require('./bge-small'),
  llm: require('./llm'),
};
/** The kind that installs each LOCAL_EMBEDDER model (libs/embeddings LOCAL_EMBEDDER_MODELS names the same). */
const EMBEDDER_KINDS = { minilm: 'embedder', 'bge-small': 'bge-small' };
/** LOCAL_EMBEDDER=auto's model: the same as DEFAULT_LOCAL_EMBEDDER in libs/embeddings (a unit test checks). */
const DEFAULT_EMBEDDER = 'bge-small';
const DEFAULT_KINDS = ['embedder', 'bge-small'];

class UsageError extends Error {}

function kindModule(name) {
  const m = KINDS[name];
  if (!m) throw new UsageError(`Unknown model kind "${name}" (known: ${Object.keys(KINDS).join(', ')})`);
  return m;
}

/** Installs each kind as one timed `[setup]` step. Throws the first ProvisionError. */
async function installModels(kinds = DEFAULT_KINDS, { force = false, log = console.log } = {}) {
  for (const name of kinds) {
    const m = kindModule(name);
    await step(m.title, (note) => m.install({ force, note }), { log });
  }
}

async function main(argv) {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  for (const f of flags) {
    if (!['--force', '--status', '--help'].includes(f)) throw new UsageError(`Unknown option ${f}`);
  }
  const kinds = argv.filter((a) => !a.startsWith('--'));
  if (flags.has('--help')) {
    console.log(
      `Usage: npm run models:install [-- [--force|--status] [kind...]]\nKinds: ${Object.keys(KINDS).join(', ')} (default: ${DEFAULT_KINDS.join(', ')})`,
    );
    return;
  }
  const selected = kinds.length ? kinds : DEFAULT_KINDS;
  if (flags.has('--status')) {
    for (const name of selected) {
      const s = kindModule(name).status();
      console.log(`${name}: ${s.installed ? `installed (${s.dir})` : s.reason}`);
    }
    return;
  }
  await installModels(selected, { force: flags.has('--force') });
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    if (err instanceof UsageError) {
      console.error(err.message);
      process.exit(2);
    }
    console.error(err instanceof ProvisionError && err.hint ? `\n${err.hint}` : '');
    process.exit(1);
  });
}

module.exports = { KINDS, DEFAULT_KINDS, EMBEDDER_KINDS, DEFAULT_EMBEDDER, installModels, kindModule };
