#!/usr/bin/env node
// `npm start`: build when the sources are newer than dist/, then run the whole product on its
// embedded defaults (apps/api/src/standalone.ts). Configured services are used instead.
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'dist/apps/api/src/standalone.js');

function newestMtime(dir) {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

const sources = Math.max(...['apps', 'libs', 'workflows'].map((d) => newestMtime(path.join(root, d))));
if (!fs.existsSync(entry) || fs.statSync(entry).mtimeMs < sources) {
  console.log('Building (sources changed since the last build)...');
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
}
require(entry).main();
