import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError, loadConfig } from '@docqa/common';
import { LocalHashingEmbedder } from '../local-hashing.embedder';
import { loadLocalEmbedder, localEmbedderCandidates } from './local-embedder.factory';
import { DEFAULT_LOCAL_EMBEDDER, LOCAL_EMBEDDER_MODELS } from './local-model';
import { localModelOfSpace } from './model-in-use';

const silent = { warn: jest.fn(), log: jest.fn() } as never;

describe('choosing the local embedder (LOCAL_EMBEDDER)', () => {
  it('tries the named model alone, the default model first under auto, none for hashing', () => {
    expect(localEmbedderCandidates('bge-small')).toEqual(['bge-small']);
    expect(localEmbedderCandidates('minilm')).toEqual(['minilm']);
    expect(localEmbedderCandidates('hashing')).toEqual([]);
    const auto = localEmbedderCandidates('auto');
    expect(auto[0]).toBe(DEFAULT_LOCAL_EMBEDDER);
    expect([...auto].sort()).toEqual(Object.keys(LOCAL_EMBEDDER_MODELS).sort());
  });

  it('under auto tries the model the documents are embedded by first; a named model stays alone', () => {
    for (const inUse of ['minilm', 'bge-small'] as const) {
      const auto = localEmbedderCandidates('auto', inUse);
      expect(auto[0]).toBe(inUse);
      expect([...auto].sort()).toEqual(Object.keys(LOCAL_EMBEDDER_MODELS).sort());
      expect(localEmbedderCandidates('bge-small', inUse)).toEqual(['bge-small']);
      expect(localEmbedderCandidates('hashing', inUse)).toEqual([]);
    }
  });

  it('reads the local model of a recorded embedding space, at either precision', () => {
    expect(localModelOfSpace('all-MiniLM-L6-v2:384')).toBe('minilm');
    expect(localModelOfSpace('all-MiniLM-L6-v2-int8:384')).toBe('minilm');
    expect(localModelOfSpace('bge-small-en-v1.5-int8:384')).toBe('bge-small');
    expect(localModelOfSpace('embed-english-v3.0:1024')).toBeUndefined();
    expect(localModelOfSpace('local-hash-v1:384')).toBeUndefined();
  });

  describe('without any model installed', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-no-models-'));
    const cfg = (LOCAL_EMBEDDER: string) =>
      loadConfig({ NODE_ENV: 'test', DATA_DIR: dir, DOCQA_CACHE_DIR: dir, LOCAL_EMBEDDER });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('auto stands in the hashing embedder with a warning naming how to install the default model', async () => {
      const e = await loadLocalEmbedder(cfg('auto'), silent);
      expect(e).toBeInstanceOf(LocalHashingEmbedder);
      const kind = LOCAL_EMBEDDER_MODELS[DEFAULT_LOCAL_EMBEDDER].installKind;
      expect(e.warning).toContain(`npm run models:install -- ${kind}`);
      expect(e.warning).not.toContain(dir); // /version is public: no paths
    });

    it.each(['minilm', 'bge-small'] as const)(
      '%s refuses to start, saying how to install it',
      async (model) => {
        const kind = LOCAL_EMBEDDER_MODELS[model].installKind;
        const p = loadLocalEmbedder(cfg(model), silent);
        await expect(p).rejects.toThrow(ConfigError);
        await expect(loadLocalEmbedder(cfg(model), silent)).rejects.toThrow(
          new RegExp(`^LOCAL_EMBEDDER=${model}: .*not installed.*models:install -- ${kind}\\b`),
        );
      },
    );

    it('hashing needs no model', async () => {
      expect(await loadLocalEmbedder(cfg('hashing'), silent)).toBeInstanceOf(LocalHashingEmbedder);
    });
  });

  it('refuses an unknown LOCAL_EMBEDDER value at configuration time', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', DATA_DIR: os.tmpdir(), LOCAL_EMBEDDER: 'bge' })).toThrow(
      /LOCAL_EMBEDDER="bge" must be one of auto, minilm, bge-small, hashing/,
    );
  });
});
