// Shared by the model installers (embedder.js, bge-small.js): a model directory is filled in a
// temporary sibling and renamed into place, so a reader never sees a half-written model.
const fs = require('node:fs');
const path = require('node:path');
const { sha256File } = require('../setup/common');

/** Runs `fill(tmpDir)`, then replaces `dir` with what it wrote; the temp dir never outlives it. */
function replaceDirAtomically(dir, fill) {
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  try {
    fill(tmp);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.renameSync(tmp, dir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Size and sha256 of each of `files` in `dir`, as a model manifest lists them. */
function fileEntries(dir, files) {
  const out = {};
  for (const f of files) {
    const p = path.join(dir, f);
    out[f] = { bytes: fs.statSync(p).size, sha256: sha256File(p) };
  }
  return out;
}

module.exports = { replaceDirAtomically, fileEntries };
