import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Outcomes counted by `docqa_documents_indexed_total{status}` (the document's final status). */
export const INDEXED_DOCUMENT_STATUSES = ['COMPLETE', 'ERROR', 'CANCELLED'] as const;
export type IndexedDocumentStatus = (typeof INDEXED_DOCUMENT_STATUSES)[number];

/** Document statuses reported by the queue depth gauge. */
export const QUEUED_DOCUMENT_STATUSES = ['PENDING', 'INDEXING'] as const;
export type QueuedDocumentStatus = (typeof QUEUED_DOCUMENT_STATUSES)[number];

/** Counts per queued status, read from the database when Prometheus scrapes. */
export type QueueDepthSource = () => Promise<Partial<Record<QueuedDocumentStatus, number>>>;

/** Seconds; covers quick health probes up to long answers and SSE streams. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const COLLECT_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The process's Prometheus series. One instance per process (`docqaMetrics`), served by the
 * metrics endpoint of the api and of the worker (METRICS_PORT). Modules increment it directly:
 *
 *   docqaMetrics.askRequests.inc();
 *   docqaMetrics.documentsIndexed.inc({ status: 'COMPLETE' });
 */
export class DocqaMetrics {
  readonly registry = new Registry();

  /** Every HTTPS request, labelled by route template (never the raw path), method and status. */
  readonly httpRequestDuration = new Histogram({
    name: 'docqa_http_request_duration_seconds',
    help: 'Latency of API requests in seconds, by route template, method and response status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  /** One per question asked (chatbot and Document API ask endpoints, streamed or not). */
  readonly askRequests = new Counter({
    name: 'docqa_ask_requests_total',
    help: 'Questions asked (ask endpoints, streamed or not).',
    registers: [this.registry],
  });

  /** One per document whose indexing ended, by final status. */
  readonly documentsIndexed = new Counter({
    name: 'docqa_documents_indexed_total',
    help: 'Documents whose indexing ended, by final status (COMPLETE, ERROR, CANCELLED).',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  /**
   * The embedded search engine's index maintenance (compaction, index merges, clean-up), which holds
   * its write lock: by what started it (`idle`, `writes`, `settle`, `close`, `call`).
   */
  readonly searchMaintenanceDuration = new Histogram({
    name: 'docqa_search_maintenance_duration_seconds',
    help: "Duration of the embedded search engine's index maintenance (holds its write lock), by trigger.",
    labelNames: ['trigger'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  /**
   * Giving freed native memory back to the system after the embedded engine's maintenance runs
   * (glibc's malloc_trim; releaseFreedNativeMemory); nothing is observed where there is no glibc.
   */
  readonly nativeMemoryReleaseDuration = new Histogram({
    name: 'docqa_native_memory_release_duration_seconds',
    help: 'Duration of giving memory freed by native code (the embedded search engine) back to the system.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });

  private queueDepthSource?: QueueDepthSource;

  /** Documents waiting for or in indexing, counted in Postgres at scrape time. */
  readonly documentQueueDepth: Gauge<'status'>;

  private defaultsCollected = false;

  constructor() {
    // Known label values start at 0 so rate() and alerts work before the first event.
    for (const status of INDEXED_DOCUMENT_STATUSES) this.documentsIndexed.inc({ status }, 0);
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    this.documentQueueDepth = new Gauge({
      name: 'docqa_documents_queue_depth',
      help: 'Documents waiting for indexing (PENDING) or being indexed (INDEXING), all accounts, read from Postgres at scrape time.',
      labelNames: ['status'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        const source = self.queueDepthSource;
        if (!source) return;
        try {
          const counts = await withTimeout(source(), COLLECT_TIMEOUT_MS);
          for (const status of QUEUED_DOCUMENT_STATUSES) this.set({ status }, counts[status] ?? 0);
        } catch {
          // Database unreachable: no sample rather than a stale one (readiness reports the outage).
        }
      },
    });
  }

  /** Node.js process metrics (CPU, memory, event loop lag, GC), once per process. */
  collectDefaults(): void {
    if (this.defaultsCollected) return;
    this.defaultsCollected = true;
    collectDefaultMetrics({ register: this.registry });
  }

  /** Registers the database query behind the queue depth gauge; returns the function that removes it. */
  setQueueDepthSource(source: QueueDepthSource): () => void {
    this.queueDepthSource = source;
    return () => {
      if (this.queueDepthSource === source) this.queueDepthSource = undefined;
    };
  }
}

/** The process-wide metrics registry. */
export const docqaMetrics = new DocqaMetrics();

/**
 * Other Prometheus text endpoints of this process appended to its own scrape (the Temporal SDK's
 * exporter on a loopback port), keyed by name.
 */
const externalSources = new Map<string, string>();

export function registerMetricsSource(name: string, url: string): void {
  externalSources.set(name, url);
}

export function metricsSources(): ReadonlyMap<string, string> {
  return externalSources;
}
