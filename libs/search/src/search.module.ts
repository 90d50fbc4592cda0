import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import * as path from 'node:path';
import { APP_CONFIG, AppConfig, EMBEDDING_SPACE, EmbeddingSpace } from '@docqa/common';
import { ElasticsearchSearchIndex } from './elasticsearch.adapter';
import { EmbeddedSearchIndex } from './embedded.adapter';
import { SEARCH_INDEX, SearchIndex } from './search.port';

@Injectable()
class SearchIndexCloser implements OnApplicationShutdown {
  constructor(@Inject(SEARCH_INDEX) private readonly index: SearchIndex) {}
  async onApplicationShutdown(): Promise<void> {
    await this.index.close();
  }
}

/** The adapter the configuration asks for: Elasticsearch when ELASTICSEARCH_URL is set. */
export function createSearchIndex(cfg: AppConfig, space: EmbeddingSpace): SearchIndex {
  return cfg.elasticsearchUrl
    ? new ElasticsearchSearchIndex({ url: cfg.elasticsearchUrl, prefix: cfg.searchIndexPrefix, space })
    : new EmbeddedSearchIndex({ dir: path.join(cfg.dataDir, 'search'), space });
}

/**
 * Binds the SearchIndex port: Elasticsearch when ELASTICSEARCH_URL is set, else the embedded
 * engine. The embedding space (model, dimensions) comes from LlmModule, so the index version
 * always matches the configured embedder.
 */
@Global()
@Module({
  providers: [
    {
      provide: SEARCH_INDEX,
      inject: [APP_CONFIG, EMBEDDING_SPACE],
      useFactory: createSearchIndex,
    },
    SearchIndexCloser,
  ],
  exports: [SEARCH_INDEX],
})
export class SearchModule {}
