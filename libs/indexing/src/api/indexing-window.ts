import type { IndexingConfig, SearchConfig } from '@docqa/common';

/**
 * Documents a run indexes at once when INDEXING_CONCURRENCY is unset. The embedded defaults run the
 * search engine, the Temporal dev server and the embedder on the same cores, so past 16 documents
 * more only queue (2,000 small files: 16 gave 20.1 files/s, 64 gave 18.4; 10,000: 17.2 both, 16 with
 * less memory); with Elasticsearch and a Temporal server elsewhere the time is in round trips, and
 * 64 in flight hide more of them (10,000 small files: 29.5 against 15.0 files/s at 16).
 * docs/benchmarks/sharepoint.md.
 */
export const EMBEDDED_ENGINE_WINDOW = 16;
export const ELASTICSEARCH_WINDOW = 64;

/** INDEXING_CONCURRENCY, else the window of the configured search engine. */
export function indexingWindow(
  indexing: Pick<IndexingConfig, 'concurrency'>,
  search: Pick<SearchConfig, 'elasticsearchUrl'>,
): number {
  return indexing.concurrency ?? (search.elasticsearchUrl ? ELASTICSEARCH_WINDOW : EMBEDDED_ENGINE_WINDOW);
}
