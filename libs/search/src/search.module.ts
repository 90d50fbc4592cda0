import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import * as path from 'node:path';
import { APP_CONFIG, AppConfig } from '@docqa/common';
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

/** Binds the SearchIndex port: Elasticsearch when ELASTICSEARCH_URL is set, else the embedded engine. */
@Global()
@Module({
  providers: [
    {
      provide: SEARCH_INDEX,
      inject: [APP_CONFIG],
      useFactory: (cfg: AppConfig): SearchIndex =>
        cfg.elasticsearchUrl
          ? new ElasticsearchSearchIndex(cfg.elasticsearchUrl)
          : new EmbeddedSearchIndex(path.join(cfg.dataDir, 'search')),
    },
    SearchIndexCloser,
  ],
  exports: [SEARCH_INDEX],
})
export class SearchModule {}
