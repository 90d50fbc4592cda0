import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TEMPORAL_CACHE_BIN, TEMPORAL_CLI_VERSION } from '@docqa/common';
import {
  DEFAULT_LOCAL_EMBEDDER,
  defaultLocalModelDir,
  LOCAL_EMBEDDER_MODEL,
  LOCAL_EMBEDDER_MODELS,
  LocalEmbedderModel,
  LocalModelMissingError,
  readLocalModel,
} from './local-model';

// The installers are plain CommonJS scripts (they run before any build); the runtime must look
// where they install.
const embedderKind = require('../../../../scripts/models/embedder');
const models = require('../../../../scripts/models');
const temporalCli = require('../../../../scripts/setup/temporal-cli');

describe('where the runtime looks for what the first run installs', () => {
  it('finds the embedding models and the Temporal CLI where the installers put them', () => {
    for (const model of Object.keys(LOCAL_EMBEDDER_MODELS) as LocalEmbedderModel[]) {
      const kind = models.kindModule(LOCAL_EMBEDDER_MODELS[model].installKind);
      expect(models.EMBEDDER_KINDS[model]).toBe(LOCAL_EMBEDDER_MODELS[model].installKind);
      expect(defaultLocalModelDir(undefined, model)).toBe(kind.MODEL_DIR);
      expect(LOCAL_EMBEDDER_MODELS[model].name).toBe(kind.NAME);
    }
    expect(defaultLocalModelDir()).toBe(defaultLocalModelDir(undefined, DEFAULT_LOCAL_EMBEDDER));
    // `npm start` installs the model LOCAL_EMBEDDER=auto runs
    expect(models.DEFAULT_EMBEDDER).toBe(DEFAULT_LOCAL_EMBEDDER);
    // `npm run models:install` with no kind installs the default embedder
    expect(models.DEFAULT_KINDS).toContain(LOCAL_EMBEDDER_MODELS[DEFAULT_LOCAL_EMBEDDER].installKind);
    expect(LOCAL_EMBEDDER_MODEL).toBe(embedderKind.NAME);
    expect(models.kindModule('bge-small').QUERY_PREFIX).toBe(
      'Represent this sentence for searching relevant passages: ',
    );
    expect(TEMPORAL_CACHE_BIN).toBe(temporalCli.BIN);
    expect(TEMPORAL_CLI_VERSION).toBe(temporalCli.VERSION);
  });

  it('reads a complete manifest and refuses a missing or inconsistent one with the reason', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-manifest-'));
    try {
      expect(() => readLocalModel(dir)).toThrow(LocalModelMissingError);
      expect(() => readLocalModel(dir)).toThrow(/not installed/);
      fs.writeFileSync(path.join(dir, 'manifest.json'), '{');
      expect(() => readLocalModel(dir)).toThrow(/not valid JSON/);
      const files = { 'model.onnx': 'onnx-bytes', 'tokenizer.json': '{}', 'tokenizer_config.json': '{}' };
      for (const [f, body] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), body);
      const manifest = {
        kind: 'embedder',
        name: 'all-MiniLM-L6-v2',
        dimensions: 384,
        maxTokens: 256,
        pooling: 'mean',
        normalized: true,
        files: Object.fromEntries(
          Object.entries(files).map(([f, b]) => [f, { bytes: b.length, sha256: 'x' }]),
        ),
      };
      for (const bad of [{ pooling: 'max' }, { pooling: 'cls', queryPrefix: 7 }]) {
        fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ ...manifest, ...bad }));
        expect(() => readLocalModel(dir)).toThrow(/does not describe an embedding model/);
      }
      const bge = { ...manifest, name: 'bge-small-en-v1.5', pooling: 'cls', queryPrefix: 'Represent: ' };
      fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(bge));
      expect(readLocalModel(dir)).toMatchObject({ pooling: 'cls', queryPrefix: 'Represent: ' });
      fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
      expect(readLocalModel(dir)).toMatchObject({ name: 'all-MiniLM-L6-v2', dimensions: 384 });
      fs.appendFileSync(path.join(dir, 'model.onnx'), 'more');
      expect(() => readLocalModel(dir)).toThrow(/model.onnx is missing or incomplete/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
