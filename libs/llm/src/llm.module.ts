import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import {
  APP_CONFIG,
  AppConfig,
  ConfigError,
  docqaCacheDir,
  EMBEDDING_SPACE,
  EmbeddingSpace,
} from '@docqa/common';
import { CohereConnection } from './cohere/cohere-client';
import { CohereEmbedder } from './embeddings/cohere.embedder';
import { Embedder, EMBEDDER } from './embeddings/embedder.port';
import { LocalHashingEmbedder } from './embeddings/local-hashing.embedder';
import {
  defaultLocalModelDir,
  LOCAL_EMBEDDER_INSTALL_HINT,
  LocalModelMissingError,
} from './embeddings/onnx/local-model';
import { OnnxEmbedder } from './embeddings/onnx/onnx.embedder';
import { CohereGenerator } from './generation/cohere/cohere.generator';
import { CohereReranker } from './generation/cohere/cohere.reranker';
import { CohereRewriter } from './generation/cohere/cohere.rewriter';
import { CohereTitler } from './generation/cohere/cohere.titler';
import {
  Generator,
  GENERATOR,
  LOCAL_GENERATOR,
  Reranker,
  RERANKER,
  REWRITER,
  Rewriter,
  TITLER,
  Titler,
} from './generation/generation.port';
import { LocalGenerator } from './generation/local/local.generator';
import { LocalReranker } from './generation/local/local.reranker';
import { LocalRewriter } from './generation/local/local.rewriter';
import { LocalTitler } from './generation/local/local.titler';

/**
 * The embedder the configuration asks for: Cohere when COHERE_API_KEY is set, else the local one
 * (LOCAL_EMBEDDER): the MiniLM model when installed, the hashing embedder otherwise (`auto`, with
 * a warning) or on request (`hashing`). `minilm` refuses to start without the model.
 */
export async function createEmbedder(cfg: AppConfig): Promise<Embedder> {
  if (cfg.cohereApiKey) {
    return new CohereEmbedder({
      apiKey: cfg.cohereApiKey,
      model: cfg.cohereEmbedModel,
      baseUrl: cfg.cohereBaseUrl,
    });
  }
  if (cfg.localEmbedder === 'hashing') return new LocalHashingEmbedder();
  const dir = cfg.localEmbedderModelDir ?? defaultLocalModelDir(docqaCacheDir(cfg.docqaCacheDir));
  try {
    return await OnnxEmbedder.load({
      dir,
      threads: cfg.localEmbedderThreads,
      batchSize: cfg.localEmbedderBatchSize,
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (cfg.localEmbedder === 'minilm') {
      throw new ConfigError(`LOCAL_EMBEDDER=minilm: ${reason}. ${LOCAL_EMBEDDER_INSTALL_HINT}`);
    }
    // /version is public: the warning names no path; the log line has the details
    const what =
      err instanceof LocalModelMissingError
        ? 'the local embedding model is not installed'
        : 'the local embedding model could not be loaded';
    const warning = `Semantic search is off: ${what}; the lexical hashing embedder stands in. ${LOCAL_EMBEDDER_INSTALL_HINT}`;
    new Logger('LlmModule').warn(`${warning} (${reason})`);
    return new LocalHashingEmbedder({ warning });
  }
}

@Injectable()
class EmbedderCloser implements OnApplicationShutdown {
  constructor(@Inject(EMBEDDER) private readonly embedder: Embedder) {}
  async onApplicationShutdown(): Promise<void> {
    await this.embedder.close?.();
  }
}

/** The local extractive answerer, with LOCAL_ANSWER_MIN_MARGIN. */
export function createLocalGenerator(cfg: AppConfig): LocalGenerator {
  const minMargin = Number(cfg.localAnswerMinMargin ?? '1.4');
  if (!Number.isFinite(minMargin) || minMargin < 1) {
    throw new ConfigError('Invalid configuration: LOCAL_ANSWER_MIN_MARGIN must be a number >= 1');
  }
  return new LocalGenerator({ minMargin });
}

function cohere(cfg: AppConfig): CohereConnection | undefined {
  return cfg.cohereApiKey ? { apiKey: cfg.cohereApiKey, baseUrl: cfg.cohereBaseUrl } : undefined;
}

/** Answer generator: Cohere chat with documents when COHERE_API_KEY is set, else the local extractive one. */
export function createGenerator(cfg: AppConfig, local: Generator): Generator {
  const c = cohere(cfg);
  return c ? new CohereGenerator({ ...c, model: cfg.cohereChatModel }) : local;
}

export function createRewriter(cfg: AppConfig): Rewriter {
  const c = cohere(cfg);
  return c ? new CohereRewriter({ ...c, model: cfg.cohereChatModel }) : new LocalRewriter();
}

export function createTitler(cfg: AppConfig): Titler {
  const c = cohere(cfg);
  return c ? new CohereTitler({ ...c, model: cfg.cohereChatModel }) : new LocalTitler();
}

/**
 * Reranker: Cohere rerank when COHERE_API_KEY and COHERE_RERANK_MODEL are set, none (null) with
 * Cohere but no rerank model, and the local lexical reranker on the local provider.
 */
export function createReranker(cfg: AppConfig): Reranker | null {
  const c = cohere(cfg);
  if (!c) return new LocalReranker();
  return cfg.cohereRerankModel ? new CohereReranker({ ...c, model: cfg.cohereRerankModel }) : null;
}

/**
 * Binds the model ports. EMBEDDING_SPACE (model name + dimensions) is what SearchModule needs to
 * pick its index version, so the index and the embedder can never disagree. GENERATOR, REWRITER,
 * TITLER and RERANKER follow the same rule as the embedder: Cohere when COHERE_API_KEY is set,
 * else local; LOCAL_GENERATOR is always the local one (`config.model: "local"`).
 */
@Global()
@Module({
  providers: [
    { provide: EMBEDDER, inject: [APP_CONFIG], useFactory: createEmbedder },
    {
      provide: EMBEDDING_SPACE,
      inject: [EMBEDDER],
      useFactory: (e: Embedder): EmbeddingSpace => ({ modelName: e.modelName, dimensions: e.dimensions }),
    },
    { provide: LOCAL_GENERATOR, inject: [APP_CONFIG], useFactory: createLocalGenerator },
    { provide: GENERATOR, inject: [APP_CONFIG, LOCAL_GENERATOR], useFactory: createGenerator },
    { provide: REWRITER, inject: [APP_CONFIG], useFactory: createRewriter },
    { provide: TITLER, inject: [APP_CONFIG], useFactory: createTitler },
    { provide: RERANKER, inject: [APP_CONFIG], useFactory: createReranker },
    EmbedderCloser,
  ],
  exports: [EMBEDDER, EMBEDDING_SPACE, LOCAL_GENERATOR, GENERATOR, REWRITER, TITLER, RERANKER],
})
export class LlmModule {}
