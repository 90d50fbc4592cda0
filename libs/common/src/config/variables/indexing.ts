import type { ConfigVariable } from '../config.schema';

/** Indexing throughput, limits and the search engine deadlines. */
export const INDEXING_VARIABLES = [
  {
    name: 'INDEXING_CONCURRENCY',
    kind: 'int',
    description:
      'Documents one docset indexing run works on at the same time (the sliding window of per-document child workflows). Unset: 16 with the embedded search engine, 64 with Elasticsearch. The embedded defaults are bound by the cores (2,000 small files: 16 indexed 1.8x as fast as 4 and 1.09x as fast as 64; 10,000: the same rate, less memory); with Elasticsearch the time is in round trips, and 64 indexed 10,000 small files 2.0x as fast as 16 (docs/benchmarks/sharepoint.md). PDF extraction and embedding have their own bounded pools, so a larger window queues there rather than overloading the cores.',
  },
  {
    name: 'INDEXING_CHILDREN_PER_RUN',
    kind: 'int',
    default: '200',
    description:
      'Per-document child workflows one docset workflow run starts before it continues-as-new (keeps its history bounded).',
  },
  {
    name: 'INDEXING_MAX_FILE_BYTES',
    kind: 'int',
    default: '104857600',
    description:
      'Largest source file that is indexed. A larger file still becomes a document: it ends ERROR with a reason naming this limit (checked against the listed size before any download, and while downloading), counted in progress as an error and by check-source as tooLargeFileCount.',
  },
  {
    name: 'WORKER_MAX_CONCURRENT_ACTIVITIES',
    kind: 'int',
    default: '100',
    description:
      'Activity slots of one worker process (Temporal maxConcurrentActivityTaskExecutions): how many indexing steps it runs at once. A step that stops answering frees its slot at its deadline or cancellation.',
  },
  {
    name: 'INDEXING_STALL_AFTER_MS',
    kind: 'int',
    default: '120000',
    description:
      'Health reports `indexing` down (503 on /health and /health/ready) when indexing activities have waited longer than this to start while no activity started, heartbeated or finished in that time: the worker is wedged.',
  },
  {
    name: 'INDEXING_UNAVAILABLE_RETRY_MS',
    kind: 'int',
    default: '15000',
    description:
      'First wait before an indexing step is tried again after it failed because a dependency was unavailable: the search engine down, past its deadline or not accepting writes (its write lock held past SEARCH_LOCK_TIMEOUT_MS), the database unreachable or out of pool connections, the embedding or answer model failing. Doubles per attempt up to 2 minutes, so a step outlasts about ten minutes of an outage without holding a worker slot.',
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
      'Deadline of one search-index write (a batch of chunks, a delete). Past it the indexing step fails as a retryable activity failure.',
  },
  {
    name: 'SEARCH_LOCK_TIMEOUT_MS',
    kind: 'int',
    default: '60000',
    description:
      'Embedded engine: longest wait for its write lock (writes and index maintenance take turns). Past it the write fails as retryable.',
  },
  {
    name: 'SEARCH_MAINTENANCE_TIMEOUT_MS',
    kind: 'int',
    default: '600000',
    description:
      'Embedded engine: deadline of index maintenance (compaction, folding new rows into the indices). Past it an error is logged and health reports search down until it ends.',
  },
  {
    name: 'SEARCH_EMBEDDED_CACHE_MB',
    kind: 'int',
    default: '256',
    description:
      "Embedded engine: memory its caches may hold, in MiB (three quarters for index data, a quarter for file metadata). The engine's own default (7 GiB) let the process grow by about 100 MB per 1,000 writes, caching the indices and files of table versions that maintenance had replaced (docs/benchmarks/sharepoint.md). The engine keeps the bound over time: it admits an entry and evicts for it just after, so for a moment its caches may hold up to about one and a half times the bound.",
  },
  {
    name: 'SEARCH_EMBEDDED_RELEASE_MEMORY',
    kind: 'bool',
    default: 'true',
    description:
      "Embedded engine: after each index maintenance run, give the memory it freed back to the system (glibc's malloc_trim, about 16 ms a run; nothing on other C libraries). glibc otherwise keeps the engine's freed buffers: the first 20 minutes of a 100,000-file library peaked about 230 MB higher without it (docs/benchmarks/sharepoint.md).",
  },
  {
    name: 'HEALTH_CHECK_TIMEOUT_MS',
    kind: 'int',
    default: '3000',
    description:
      'Deadline of each dependency probe of /health and /health/ready (Postgres query, Temporal, search read and write probes); a probe past it reports its part down.',
  },
  {
    name: 'SHUTDOWN_TIMEOUT_MS',
    kind: 'int',
    default: '25000',
    description:
      'On SIGINT/SIGTERM: time for a graceful stop (running activities are cancelled, engines closed) before the process exits anyway, logging what did not stop.',
  },
] as const satisfies readonly ConfigVariable[];
