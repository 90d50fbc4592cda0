import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, EMBEDDING_SPACE, EmbeddingSpace } from '@docqa/common';
import { CohereEmbedder } from './cohere.embedder';
import { Embedder, EMBEDDER } from './embedder.port';
import { loadLocalEmbedder } from './onnx/local-embedder.factory';
import { localModelInUse } from './onnx/model-in-use';

/**
 * The embedder the configuration asks for: Cohere when COHERE_API_KEY is set, else the local one
 * (LOCAL_EMBEDDER, loadLocalEmbedder): a semantic model when installed, the hashing embedder
 * otherwise (`auto`, with a warning) or on request (`hashing`). With `auto`, the database (when the
 * application has one) says which local model the install's documents are embedded by.
 */
export async function createEmbedder(cfg: AppConfig, ds?: DataSource): Promise<Embedder> {
  if (cfg.models.cohereApiKey) {
    return new CohereEmbedder({
      apiKey: cfg.models.cohereApiKey,
      model: cfg.models.cohereEmbedModel,
      baseUrl: cfg.models.cohereBaseUrl,
    });
  }
  const auto = cfg.models.localEmbedder === 'auto' && !cfg.models.localEmbedderModelDir;
  return loadLocalEmbedder(cfg, undefined, auto ? await localModelInUse(ds) : undefined);
}

@Injectable()
class EmbedderCloser implements OnApplicationShutdown {
  constructor(@Inject(EMBEDDER) private readonly embedder: Embedder) {}
  async onApplicationShutdown(): Promise<void> {
    await this.embedder.close?.();
  }
}

/**
 * Binds the embedding model port. EMBEDDING_SPACE (model name + dimensions) is what SearchModule
 * needs to pick its index version, so the index and the embedder can never disagree. The embedder
 * is closed at shutdown (the local model's inference thread).
 */
@Global()
@Module({
  providers: [
    {
      provide: EMBEDDER,
      inject: [APP_CONFIG, { token: DataSource, optional: true }],
      useFactory: createEmbedder,
    },
    {
      provide: EMBEDDING_SPACE,
      inject: [EMBEDDER],
      useFactory: (e: Embedder): EmbeddingSpace => ({ modelName: e.modelName, dimensions: e.dimensions }),
    },
    EmbedderCloser,
  ],
  exports: [EMBEDDER, EMBEDDING_SPACE],
})
export class EmbeddingsModule {}
