import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import * as path from 'node:path';
import { APP_CONFIG, AppConfig, EMBEDDING_SPACE, EmbeddingSpace, shutdownTracker } from '@docqa/common';
import { ElasticsearchSearchIndex } from './elasticsearch.adapter';
import { EmbeddedSearchIndex } from './embedded.adapter';
import { SEARCH_INDEX, SearchDeadlines, SearchIndex } from './search.port';
import { SEARCH_EMBEDDED_CACHE_MB, SEARCH_EMBEDDED_RELEASE_MEMORY, SEARCH_FUSION } from './tuning';

@Injectable()
class SearchIndexCloser implements OnApplicationShutdown {
  private readonly log = new Logger('SearchIndex');
  constructor(
    @Inject(SEARCH_INDEX) private readonly index: SearchIndex,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    // A wedged engine cannot be interrupted: after its share of the budget the process goes on
    // stopping, and the log says why.
    await shutdownTracker
      .step('search index', () =>
        this.index.close({ timeoutMs: Math.round(this.cfg.core.shutdownTimeoutMs / 3) }),
      )
      .catch((err: Error) => {
        this.log.error(`search index did not close: ${err.message}`);
        shutdownTracker.failed('search index', err.message);
      });
  }
}

/** Engine call deadlines from SEARCH_*_TIMEOUT_MS. */
export function searchDeadlines(cfg: AppConfig): SearchDeadlines {
  return {
    readMs: cfg.search.readTimeoutMs,
    writeMs: cfg.search.writeTimeoutMs,
    lockMs: cfg.search.lockTimeoutMs,
    maintenanceMs: cfg.search.maintenanceTimeoutMs,
  };
}

/** The adapter the configuration asks for: Elasticsearch when ELASTICSEARCH_URL is set. */
export function createSearchIndex(cfg: AppConfig, space: EmbeddingSpace): SearchIndex {
  const deadlines = searchDeadlines(cfg);
  return cfg.search.elasticsearchUrl
    ? new ElasticsearchSearchIndex({
        url: cfg.search.elasticsearchUrl,
        prefix: cfg.search.indexPrefix,
        space,
        deadlines,
        fusion: SEARCH_FUSION,
      })
    : new EmbeddedSearchIndex({
        dir: path.join(cfg.core.dataDir, 'search'),
        space,
        cacheMb: SEARCH_EMBEDDED_CACHE_MB,
        releaseFreedMemory: SEARCH_EMBEDDED_RELEASE_MEMORY,
        deadlines,
        fusion: SEARCH_FUSION,
      });
}

/**
 * Binds the SearchIndex port: Elasticsearch when ELASTICSEARCH_URL is set, else the embedded
 * engine. The embedding space (model, dimensions) comes from EmbeddingsModule, so the index version
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
