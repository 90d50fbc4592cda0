import { Client, estypes } from '@elastic/elasticsearch';
import { Logger } from '@nestjs/common';
import { EmbeddingSpace, withDeadline } from '@docqa/common';
import { withFusionMethod } from './fusion';
import { LegHit, LegQuery, RetrievalLegs, runSearch, storedAccountId } from './retrieval-legs';
import { DocumentHit } from './routing';
import { INDEX_LAYOUT_VERSION, partitionChunks, versionedIndexName } from './index-version';
import { boundedCall, dropReason } from './elasticsearch-client';
import {
  bm25Query,
  ChunkDoc,
  chunksByIdBody,
  deleteQuery,
  documentHits,
  documentsQuery,
  KNN_MAX_CANDIDATES,
  knnSearch,
  rescoredHits,
  scopeFilter,
  SOURCE_FIELDS,
  statsQuery,
  toChunk,
  toDoc,
} from './elasticsearch-query';
import { assertIndexPrefix, ElasticsearchIndexSetup } from './elasticsearch-setup';
import { PartialIndexingError } from './search.errors';
import {
  checkChunksAndTerms,
  ChunksAndTerms,
  ChunksAndTermsQuery,
  termProbe,
  chunkId,
  ChunkRecord,
  DEFAULT_SEARCH_DEADLINES,
  deleteGenerationInBatches,
  EngineHealth,
  FusionMethod,
  ProbeStatus,
  SearchDeadlines,
  SearchHit,
  SearchIndex,
  SearchIndexStats,
  SearchQuery,
  UpsertResult,
  WriteOptions,
} from './search.port';

export { bm25Query, chunkIndexTemplate, knnCandidates } from './elasticsearch-query';

export interface ElasticsearchSearchIndexOptions {
  url: string;
  /** Alias name and prefix of versioned indices/templates (SEARCH_INDEX_PREFIX). */
  prefix: string;
  space: EmbeddingSpace;
  /** Chunks per bulk request body limit (bytes); default 5 MB. */
  flushBytes?: number;
  /** Parallel bulk requests; default 2. */
  bulkConcurrency?: number;
  /** Index layout version; only tests of the upgrade path set it. */
  layoutVersion?: number;
  /** Deadlines of engine calls (SEARCH_*_TIMEOUT_MS); defaults DEFAULT_SEARCH_DEADLINES. */
  deadlines?: Partial<SearchDeadlines>;
  /** Fusion of hybrid searches that do not name one (SEARCH_FUSION); default DEFAULT_FUSION_METHOD. */
  fusion?: FusionMethod;
}

/**
 * How long a docset's chunk count stands for deciding between an exact and a graph kNN search, and
 * how many counts are kept (the oldest go first).
 */
const KNN_COUNT_TTL_MS = 60_000;
const KNN_COUNT_CACHE_MAX = 1_000;

/**
 * Elasticsearch adapter. Writes and reads go through the alias `<prefix>`, which points at the
 * versioned index `<prefix>-v<layout>-<model>-<dims>` created from a composable index template of
 * the same name. A new layout or embedder is a new index: on first use the alias is moved to it
 * (copying chunks over when the embedding space is unchanged; elasticsearch-setup.ts). Request
 * bodies come from elasticsearch-query.ts; every call is bounded and its errors normalised by
 * elasticsearch-client.ts.
 */
export class ElasticsearchSearchIndex implements SearchIndex {
  readonly engine = 'elasticsearch' as const;
  readonly client: Client;
  readonly alias: string;
  readonly indexName: string;
  /** Index the write probe of `health` writes its one document to (beside the chunk index). */
  readonly probeIndex: string;
  private readonly log = new Logger('ElasticsearchSearchIndex');
  private readonly deadlines: SearchDeadlines;
  private readonly setup: ElasticsearchIndexSetup;
  /** Chunk counts by account and docsets (`scopeSize`). */
  private readonly scopeSizes = new Map<string, { count: number; at: number }>();

  constructor(private readonly o: ElasticsearchSearchIndexOptions) {
    assertIndexPrefix(o.prefix);
    this.deadlines = { ...DEFAULT_SEARCH_DEADLINES, ...(o.deadlines ?? {}) };
    this.probeIndex = `${o.prefix}-health`;
    // Bulk requests of a few MB can take tens of seconds on a busy node; health has its own 3 s bound.
    this.client = new Client({ node: o.url, requestTimeout: 90000, maxRetries: 2 });
    this.alias = o.prefix;
    const layoutVersion = o.layoutVersion ?? INDEX_LAYOUT_VERSION;
    this.indexName = versionedIndexName(o.prefix, o.space, layoutVersion);
    this.setup = new ElasticsearchIndexSetup({
      client: this.client,
      alias: this.alias,
      indexName: this.indexName,
      probeIndex: this.probeIndex,
      layoutVersion,
      space: o.space,
    });
  }

  /**
   * Creates template, index and alias once per process; migrates from an older index if needed.
   * A caller's signal only stops its own wait: the set-up is shared and runs on.
   */
  ensureIndex(signal?: AbortSignal): Promise<void> {
    return this.setup.ensure(signal);
  }

  /** One engine call bounded by `ms` (boundedCall). */
  private call<T>(what: string, ms: number, fn: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal) {
    return boundedCall(this.log, what, ms, fn, signal);
  }

  async upsert(chunks: ChunkRecord[], o: WriteOptions = {}): Promise<UpsertResult> {
    const { valid, failures } = partitionChunks(chunks, this.o.space.dimensions, (c) =>
      chunkId(c.documentId, c.chunkIndex, c.generation),
    );
    if (valid.length === 0) {
      if (failures.length) throw new PartialIndexingError(0, failures);
      return { indexed: 0 };
    }
    // A cancelled caller stops the helper from sending more, but requests already sent are awaited
    // (within the deadline): a delete of the document that follows must not race a bulk still
    // being applied (the embedded engine's write lock gives the same order).
    const callerSignal = o.signal;
    callerSignal?.throwIfAborted();
    const stats = await this.call(
      `bulk write of ${valid.length} chunks`,
      this.deadlines.writeMs,
      async (signal) => {
        await this.ensureIndex(signal);
        const helper = this.client.helpers.bulk<ChunkRecord>(
          {
            datasource: valid,
            onDocument: (c) => [
              { index: { _index: this.alias, _id: chunkId(c.documentId, c.chunkIndex, c.generation) } },
              toDoc(c),
            ],
            onDrop: (d) =>
              failures.push({
                id: chunkId(d.document.documentId, d.document.chunkIndex, d.document.generation),
                reason: dropReason(d.error),
              }),
            flushBytes: this.o.flushBytes ?? 2_000_000,
            concurrency: this.o.bulkConcurrency ?? 2,
            retries: 3,
            wait: 1000,
            // Searchable when it returns, without a refresh per call (issue 17): each bulk request
            // waits for the index's periodic refresh (refresh_interval 1s), which the concurrent
            // writes of many documents share.
            refresh: 'wait_for',
          },
          { signal },
        );
        const stop = () => helper.abort();
        callerSignal?.addEventListener('abort', stop, { once: true });
        signal.addEventListener('abort', stop, { once: true });
        try {
          return await helper;
        } finally {
          callerSignal?.removeEventListener('abort', stop);
        }
      },
    );
    callerSignal?.throwIfAborted();
    if (failures.length) throw new PartialIndexingError(stats.successful, failures);
    return { indexed: stats.successful };
  }

  deleteByDocument(accountId: number, documentId: string, o?: WriteOptions): Promise<number> {
    return this.deleteWhere(accountId, [{ term: { documentId } }], o);
  }

  async deleteChunks(
    accountId: number,
    documentId: string,
    generation: number,
    chunkCount: number,
    o?: WriteOptions,
  ): Promise<number> {
    return deleteGenerationInBatches(documentId, generation, chunkCount, (ids) =>
      this.deleteWhere(accountId, [{ term: { documentId } }, { ids: { values: ids } }], o),
    );
  }

  deleteByDocSet(accountId: number, docSetName: string, o?: WriteOptions): Promise<number> {
    return this.deleteWhere(accountId, [{ term: { docSetName } }], o);
  }

  deleteByAccount(accountId: number, o?: WriteOptions): Promise<number> {
    return this.deleteWhere(accountId, [], o);
  }

  private async deleteWhere(
    accountId: number,
    extra: estypes.QueryDslQueryContainer[],
    o: WriteOptions = {},
  ): Promise<number> {
    const query = deleteQuery(accountId, extra);
    return this.call(
      'delete',
      this.deadlines.writeMs,
      async (signal) => {
        await this.ensureIndex(signal);
        const r = await this.client.deleteByQuery(
          { index: this.alias, query, conflicts: 'proceed', refresh: true },
          { signal },
        );
        if (r.failures?.length) throw new Error(`delete_by_query: ${r.failures.length} failures`);
        return r.deleted ?? 0;
      },
      o.signal,
    );
  }

  search(q: SearchQuery): Promise<SearchHit[]> {
    return this.call('search', this.deadlines.readMs, async (signal) => {
      await this.ensureIndex(signal);
      return runSearch(withFusionMethod(q, this.o.fusion), this.legs(signal), this.o.space.dimensions);
    });
  }

  /**
   * The chunks and the term probes in one `_msearch`: the probes are the BM25 leg's query
   * (bm25Query, as `search` in bm25 mode sends it) with one hit and no source.
   */
  async chunksAndTerms(q: ChunksAndTermsQuery): Promise<ChunksAndTerms> {
    checkChunksAndTerms(q);
    if (q.docSetNames.length === 0 || (q.ids.length === 0 && q.terms.length === 0))
      return { chunks: [], termsFound: q.terms.map(() => false) };
    return this.call('chunksAndTerms', this.deadlines.readMs, async (signal) => {
      await this.ensureIndex(signal);
      const scope = scopeFilter({
        storedAccountId: storedAccountId(q.accountId),
        docSetNames: q.docSetNames,
      });
      const bodies: estypes.MsearchMultisearchBody[] = [
        ...(q.ids.length ? [chunksByIdBody(q)] : []),
        ...q.terms.map((t) => ({
          size: 1,
          _source: false,
          track_total_hits: false,
          query: bm25Query(termProbe(q, t).text, scope),
        })),
      ];
      const r = await this.client.msearch<ChunkDoc>(
        { index: this.alias, searches: bodies.flatMap((b) => [{}, b]) },
        { signal },
      );
      const hits = r.responses.map((x) => {
        if ('error' in x) throw new Error(`Elasticsearch msearch: ${x.error.type}`);
        return x.hits.hits;
      });
      const chunkHits = q.ids.length ? (hits.shift() ?? []) : [];
      return { chunks: chunkHits.map(toChunk), termsFound: hits.map((h) => h.length > 0) };
    });
  }

  /** The retrieval legs of one search (its requests carry `signal`); runSearch fuses them. */
  private legs(signal: AbortSignal): Required<RetrievalLegs> {
    return {
      bm25: async (q: LegQuery, size: number): Promise<LegHit[]> => {
        const r = await this.client.search<ChunkDoc>(
          {
            index: this.alias,
            size,
            _source: SOURCE_FIELDS,
            track_total_hits: false,
            query: bm25Query(q.text, scopeFilter(q), q.fieldBoosts),
          },
          { signal },
        );
        return r.hits.hits.map((h) => ({ chunk: toChunk(h), score: h._score ?? 0 }));
      },
      // Documents whose context (title, identifying terms) matches: one row per document (chunk 0).
      documents: async (q: LegQuery, size: number): Promise<DocumentHit[]> => {
        const r = await this.client.search<ChunkDoc>(
          {
            index: this.alias,
            size,
            _source: ['documentId', 'documentTitle'],
            track_total_hits: false,
            query: documentsQuery(q),
          },
          { signal },
        );
        return documentHits(r.hits.hits);
      },
      vector: async (q: LegQuery & { vector: number[] }, size: number): Promise<LegHit[]> => {
        // Which neighbours the HNSW graph finds depends on how the chunks fell into segments (flushes,
        // merges), so an approximate search differs between two indexings of the same docset: for a
        // docset small enough, the count picks an exact search instead (knnCandidates).
        const matching = await this.scopeSize(q, signal);
        // Vectors are compared as int8, whose scale each segment sets, so scores and the order among
        // close neighbours move with the layout too. The hits are scored again on their stored float
        // vectors: exact, and the same whatever the layout (Elasticsearch's rescoring of quantised
        // vectors, done here because a script engine is not part of every cluster; docs/adr/0031).
        const r = await this.client.search<ChunkDoc>(
          {
            index: this.alias,
            size,
            _source: [...SOURCE_FIELDS, 'embedding'],
            track_total_hits: false,
            knn: knnSearch(q, size, matching),
          },
          { signal },
        );
        return rescoredHits(r.hits.hits, q.vector, q.minimumSimilarityScore);
      },
    };
  }

  /**
   * How many chunks the query's docsets hold (counted up to one past KNN_MAX_CANDIDATES, all that
   * `knnCandidates` needs), remembered for KNN_COUNT_TTL_MS: a count before every search would be
   * a round trip more for a figure that rarely changes. A docset that crosses the limit meanwhile
   * is searched the other way until its count is taken again, correctly either way. A routed leg
   * (some documents of the docsets) takes the docsets' count, an upper bound of its own.
   */
  private async scopeSize(q: LegQuery, signal: AbortSignal): Promise<number> {
    const key = JSON.stringify([q.storedAccountId, [...q.docSetNames].sort()]);
    const now = Date.now();
    const known = this.scopeSizes.get(key);
    if (known && now - known.at < KNN_COUNT_TTL_MS) return known.count;
    const r = await this.client.count(
      {
        index: this.alias,
        query: { bool: { filter: scopeFilter({ ...q, documentIds: undefined }) } },
        terminate_after: KNN_MAX_CANDIDATES + 1,
      },
      { signal },
    );
    this.scopeSizes.delete(key);
    this.scopeSizes.set(key, { count: r.count, at: now });
    if (this.scopeSizes.size > KNN_COUNT_CACHE_MAX) {
      const oldest = this.scopeSizes.keys().next().value;
      if (oldest !== undefined) this.scopeSizes.delete(oldest);
    }
    return r.count;
  }

  async stats(accountId?: number): Promise<SearchIndexStats> {
    const query = statsQuery(accountId);
    const r = await this.call('count', this.deadlines.readMs, async (signal) => {
      await this.ensureIndex(signal);
      return this.client.count({ index: this.alias, query }, { signal });
    });
    return {
      engine: this.engine,
      indexName: this.indexName,
      indexVersion: this.o.layoutVersion ?? INDEX_LAYOUT_VERSION,
      embeddingModel: this.o.space.modelName,
      dimensions: this.o.space.dimensions,
      chunks: r.count,
    };
  }

  /**
   * Read probe: a count on the chunk alias (a real query through the search thread pool; it also
   * answers before the index is set up). Write probe: one small document written to
   * `<prefix>-health` (created with the chunk index, never read by searches), so a cluster that
   * accepts connections but not writes (blocks, a stalled node) shows. Until the first set-up has
   * finished there is nothing to write to: the write probe starts the set-up and reports on it.
   */
  async health(o: { timeoutMs?: number } = {}): Promise<EngineHealth> {
    const ms = o.timeoutMs ?? 3000;
    const opts = (signal: AbortSignal) => ({ signal, requestTimeout: ms, maxRetries: 0 });
    const probe = async (what: string, fn: (signal: AbortSignal) => Promise<unknown>) => {
      try {
        await this.call(what, ms, fn);
        return { status: 'up' as ProbeStatus };
      } catch (err) {
        return { status: 'down' as ProbeStatus, why: `${what}: ${(err as Error).message}` };
      }
    };
    const settingUp = !this.setup.done;
    if (settingUp) this.ensureIndex().catch(() => undefined);
    const [cluster, read, write] = await Promise.all([
      this.client.cluster
        .health({ timeout: '2s' }, { requestTimeout: ms, maxRetries: 0 })
        .then((h) => h.status)
        .catch(() => 'unreachable'),
      probe('read probe', (signal) =>
        this.client.count(
          {
            index: this.alias,
            query: { term: { accountId: '__health_probe__' } },
            allow_no_indices: true,
            ignore_unavailable: true,
          },
          opts(signal),
        ),
      ),
      settingUp
        ? { status: 'up' as ProbeStatus, why: 'write probe: index set-up in progress' }
        : probe('write probe', (signal) =>
            this.client.index(
              { index: this.probeIndex, id: 'probe', document: { at: new Date().toISOString() } },
              opts(signal),
            ),
          ),
    ]);
    const up =
      read.status === 'up' && write.status === 'up' && cluster !== 'red' && cluster !== 'unreachable';
    const problems = [read.why, write.why].filter(Boolean).join('; ');
    return {
      engine: this.engine,
      up,
      read: read.status,
      write: write.status,
      detail: `cluster ${cluster}, index ${this.indexName}${problems ? `: ${problems}` : ''}`,
    };
  }

  async close(o: { timeoutMs?: number } = {}): Promise<void> {
    await withDeadline(this.client.close(), o.timeoutMs ?? 10_000, 'elasticsearch client close');
  }
}
