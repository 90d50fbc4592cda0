import { Logger } from '@nestjs/common';
import { AppConfig, BACKGROUND_NICE, ConfigError, docqaCacheDir, LocalEmbedderSetting } from '@docqa/common';
import { LOCAL_EMBEDDER_BATCH_SIZE, LOCAL_EMBEDDER_SESSIONS, LOCAL_EMBEDDER_THREADS } from '../tuning';
import type { Embedder } from '../embedder.port';
import { LocalHashingEmbedder } from '../local-hashing.embedder';
import {
  DEFAULT_LOCAL_EMBEDDER,
  defaultLocalModelDir,
  LOCAL_EMBEDDER_MODELS,
  LocalEmbedderModel,
  localEmbedderInstallHint,
  LocalModelMissingError,
} from './local-model';
import { ModelInUse } from './model-in-use';
import { OnnxEmbedder } from './onnx.embedder';

/**
 * The models a LOCAL_EMBEDDER setting tries, in order: the named one, or (`auto`) the model the
 * install's documents are embedded by (`inUse`), else the default, first.
 */
export function localEmbedderCandidates(
  setting: LocalEmbedderSetting,
  inUse?: LocalEmbedderModel,
): LocalEmbedderModel[] {
  if (setting === 'hashing') return [];
  if (setting !== 'auto') return [setting];
  const first = inUse ?? DEFAULT_LOCAL_EMBEDDER;
  const others = (Object.keys(LOCAL_EMBEDDER_MODELS) as LocalEmbedderModel[]).filter((m) => m !== first);
  return [first, ...others];
}

/**
 * The local embedder LOCAL_EMBEDDER asks for. A named model (`minilm`, `bge-small`) loads or
 * refuses to start (ConfigError with the install hint), also when LOCAL_EMBEDDER_MODEL_DIR holds
 * another model. `auto` runs the model the install's documents are embedded by (`inUse`, so an
 * upgrade that changes the default keeps the index searchable; logged with how to switch), else
 * the default model when installed, else another installed one (logged), else the hashing embedder
 * with a warning (log and /version).
 */
export async function loadLocalEmbedder(
  cfg: AppConfig,
  log = new Logger('EmbeddingsModule'),
  inUse?: ModelInUse,
): Promise<Embedder> {
  if (cfg.models.localEmbedder === 'hashing') return new LocalHashingEmbedder();
  const load = (dir: string) =>
    OnnxEmbedder.load({
      dir,
      sessions: LOCAL_EMBEDDER_SESSIONS,
      threads: LOCAL_EMBEDDER_THREADS,
      batchSize: LOCAL_EMBEDDER_BATCH_SIZE,
      precision: cfg.models.localEmbedderPrecision,
      nice: BACKGROUND_NICE,
    });
  const candidates = localEmbedderCandidates(cfg.models.localEmbedder, inUse?.model);
  const dirs: Array<{ model?: LocalEmbedderModel; dir: string }> = cfg.models.localEmbedderModelDir
    ? [
        {
          model: cfg.models.localEmbedder === 'auto' ? undefined : candidates[0],
          dir: cfg.models.localEmbedderModelDir,
        },
      ]
    : candidates.map((model) => ({
        model,
        dir: defaultLocalModelDir(docqaCacheDir(cfg.core.docqaCacheDir), model),
      }));
  let failure: { err: unknown; model?: LocalEmbedderModel } | undefined;
  for (const { model, dir } of dirs) {
    try {
      const e = await load(dir);
      if (model && e.manifest.name !== LOCAL_EMBEDDER_MODELS[model].name) {
        await e.close();
        throw new LocalModelMissingError(
          `${dir} holds ${e.manifest.name}, not ${LOCAL_EMBEDDER_MODELS[model].name}`,
        );
      }
      if (cfg.models.localEmbedder === 'auto' && model && model !== DEFAULT_LOCAL_EMBEDDER) {
        const defaultName = LOCAL_EMBEDDER_MODELS[DEFAULT_LOCAL_EMBEDDER].name;
        log.warn(
          model === inUse?.model
            ? `LOCAL_EMBEDDER=auto keeps ${e.manifest.name}: ${inUse.documents} documents are embedded by it. ` +
                `The default model is now ${defaultName}; to switch, set LOCAL_EMBEDDER=${DEFAULT_LOCAL_EMBEDDER} ` +
                'and run `npm run cli -- reembed` (docs/models.md).'
            : `The default embedding model ${defaultName} is not installed; running ${e.manifest.name}. ` +
                localEmbedderInstallHint(DEFAULT_LOCAL_EMBEDDER),
        );
      }
      return e;
    } catch (err) {
      // the first failure is the one to report (the default model's, under auto)
      failure ??= { err, model };
      if (cfg.models.localEmbedder !== 'auto') break;
    }
  }
  const err = failure?.err;
  const reason = err instanceof Error ? err.message : String(err);
  const hint = localEmbedderInstallHint(failure?.model ?? DEFAULT_LOCAL_EMBEDDER);
  if (cfg.models.localEmbedder !== 'auto')
    throw new ConfigError(`LOCAL_EMBEDDER=${cfg.models.localEmbedder}: ${reason}. ${hint}`);
  // /version is public: the warning names no path; the log line has the details
  const what =
    err instanceof LocalModelMissingError
      ? 'the local embedding model is not installed'
      : 'the local embedding model could not be loaded';
  const warning = `Semantic search is off: ${what}; the lexical hashing embedder stands in. ${hint}`;
  log.warn(`${warning} (${reason})`);
  return new LocalHashingEmbedder({ warning });
}
