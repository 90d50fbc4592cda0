#!/usr/bin/env node
// `npm run models:install -- [kind] [options]`: installs offline model files. Each kind is a
// module scripts/models/<kind>.js exporting `main(argv)`; the embedder is the default kind.
//
//   npm run models:install                 the embedder
//   npm run models:install -- llm          the local generative model (see scripts/models/llm.js)
const fs = require('node:fs');
const path = require('node:path');

const DEFAULT_KIND = 'embedder';

async function main(argv) {
  const kinds = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.js') && f !== 'index.js')
    .map((f) => f.slice(0, -3))
    .sort();
  const [first, ...rest] = argv;
  const kind = first && !first.startsWith('-') ? first : DEFAULT_KIND;
  const args = first && !first.startsWith('-') ? rest : argv;
  if (!kinds.includes(kind)) {
    throw new Error(`unknown model kind "${kind}"; one of: ${kinds.join(', ')}`);
  }
  await require(path.join(__dirname, `${kind}.js`)).main(args);
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`models:install: ${err.message}`);
  process.exit(1);
});
