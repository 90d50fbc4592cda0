import type { ConfigVariable } from '../config.schema';

/** Indexing throughput, limits and the search engine deadlines. */
export const INDEXING_VARIABLES = [
  {
    name: 'INDEXING_CONCURRENCY',
    kind: 'int',
    description:
      'Documents one docset run indexes at once (the window of child workflows). Unset: 16 with the embedded engine, 64 with Elasticsearch (docs/benchmarks/sharepoint.md).',
  },
  {
    name: 'INDEXING_MAX_FILE_BYTES',
    kind: 'int',
    default: '104857600',
    description:
      "Largest source file that is indexed; a larger one ends ERROR naming this limit (checked before and while downloading) and counts in check-source's tooLargeFileCount.",
  },
  {
    name: 'WORKER_MAX_CONCURRENT_ACTIVITIES',
    kind: 'int',
    default: '100',
    description:
      'Activity slots of one worker process: how many indexing steps it runs at once. A step that stops answering frees its slot at its deadline or cancellation.',
  },
  {
    name: 'SEARCH_READ_TIMEOUT_MS',
    kind: 'int',
    default: '10000',
    description:
      'Deadline of one search-index read (a search leg, a count). A read past it fails with 503 DEPENDENCY_UNAVAILABLE instead of waiting.',
  },
  {
    name: 'SEARCH_WRITE_TIMEOUT_MS',
    kind: 'int',
    default: '120000',
    description:
      'Deadline of one search-index write (a batch of chunks, a delete). Past it the indexing step fails as a retryable activity failure. Sets the waits derived from it: the embedded write lock (half), embedded index maintenance (5x; past it health reports search down until it ends), and the first retry of a step whose dependency was unavailable (an eighth: 15 s, doubling up to 2 minutes).',
  },
  {
    name: 'SHUTDOWN_TIMEOUT_MS',
    kind: 'int',
    default: '25000',
    description:
      'On SIGINT/SIGTERM: time for a graceful stop (running activities are cancelled, engines closed) before the process exits anyway, logging what did not stop.',
  },
] as const satisfies readonly ConfigVariable[];
