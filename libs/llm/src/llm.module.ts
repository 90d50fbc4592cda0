import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig, EMBEDDING_SPACE, EmbeddingSpace } from '@docqa/common';
import { CohereEmbedder } from './embeddings/cohere.embedder';
import { Embedder, EMBEDDER } from './embeddings/embedder.port';
import { LocalHashingEmbedder } from './embeddings/local-hashing.embedder';

/** The embedder the configuration asks for: Cohere when COHERE_API_KEY is set, else the local one. */
export function createEmbedder(cfg: AppConfig): Embedder {
  return cfg.cohereApiKey
    ? new CohereEmbedder({
        apiKey: cfg.cohereApiKey,
        model: cfg.cohereEmbedModel,
        baseUrl: cfg.cohereBaseUrl,
      })
    : new LocalHashingEmbedder();
}

/**
 * Binds the model ports. EMBEDDING_SPACE (model name + dimensions) is what SearchModule needs to
 * pick its index version, so the index and the embedder can never disagree.
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
  ],
  exports: [EMBEDDER, EMBEDDING_SPACE],
})
export class LlmModule {}
