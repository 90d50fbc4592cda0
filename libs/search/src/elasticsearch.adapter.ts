import { Client, errors as esErrors, estypes } from '@elastic/elasticsearch';
import { Logger } from '@nestjs/common';
import {
  abortable,
  DeadlineExceededError,
  DomainError,
  EmbeddingSpace,
  ErrorCode,
  withDeadline,
} from '@docqa/common';
import {
  contextQueryText,
  DEFAULT_FIELD_BOOSTS,
  DocumentHit,
  FieldBoosts,
  LegHit,
  LegQuery,
  runSearch,
  withFusionMethod,
  storedAccountId,
} from './fusion';
import { INDEX_LAYOUT_VERSION, partitionChunks, versionedIndexName } from './index-version';
import { ChunkFailure, PartialIndexingError, searchTimedOut } from './search.errors';
import { cosine } from './vectors';
import {
  checkChunksAndTerms,
  checkChunksById,
  chunkId,
  ChunkRecord,
  ChunksAndTerms,
  ChunksAndTermsQuery,
  ChunksByIdQuery,
  DEFAULT_SEARCH_DEADLINES,
  deleteGenerationInBatches,
  EngineHealth,
  ProbeStatus,
  SearchDeadlines,
  SearchHit,
  SearchIndex,
  SearchIndexStats,
  FusionMethod,
  SearchQuery,
  StoredChunk,
  termProbe,
  UpsertResult,
  WriteOptions,
} from './search.port';

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
 * Stored document: the chunk with nothing renamed, so _source maps 1:1 to the domain type, except
 * the account id, stored as a string (`storedAccountId`).
 */
type ChunkDoc = Omit<ChunkRecord, 'accountId' | 'embedding' | 'generation'> & {
  accountId: string;
  embedding?: number[];
};

/** Elasticsearch's limit on a kNN search's candidates per shard. */
const KNN_MAX_CANDIDATES = 10_000;

/**
 * How long a docset's chunk count stands for deciding between an exact and a graph kNN search, and
 * how many counts are kept (the oldest go first).
 */
const KNN_COUNT_TTL_MS = 60_000;
const KNN_COUNT_CACHE_MAX = 1_000;

/**
 * Candidates per shard for a kNN search of `k` hits over `matching` chunks (those the filter lets
 * through). Lucene scores every vector of a segment, exactly, when the segment holds no more
 * matching documents than the candidates asked; so a search whose whole filter matches at most
 * KNN_MAX_CANDIDATES chunks asks for that many and is exact, the same neighbours as the embedded
 * engine's flat scan whatever the segments' layout. Only larger sets walk the HNSW graph (twice k,
 * at least 100), approximate, where a full scan would cost more than the graph saves.
 */
export function knnCandidates(k: number, matching: number): number {
  if (matching <= KNN_MAX_CANDIDATES) return KNN_MAX_CANDIDATES;
  return Math.min(Math.max(k * 2, 100), KNN_MAX_CANDIDATES);
}

const SOURCE_FIELDS = [
  'accountId',
  'docSetName',
  'documentId',
  'fileName',
  'pageNumber',
  'sourceType',
  'sourceId',
  'chunkIndex',
  'text',
  'documentTitle',
  'documentTerms',
  'section',
];

/** Index settings and mappings of one layout version; `_meta` records what the index holds. */
export function chunkIndexTemplate(
  space: EmbeddingSpace,
  layoutVersion = INDEX_LAYOUT_VERSION,
): {
  settings: estypes.IndicesIndexSettings;
  mappings: estypes.MappingTypeMapping;
} {
  return {
    settings: {
      number_of_shards: 1,
      auto_expand_replicas: '0-1',
      refresh_interval: '1s',
    },
    mappings: {
      dynamic: 'strict',
      _meta: {
        layoutVersion,
        embeddingModel: space.modelName,
        dimensions: space.dimensions,
      },
      properties: {
        accountId: { type: 'keyword' },
        docSetName: { type: 'keyword' },
        documentId: { type: 'keyword' },
        fileName: { type: 'keyword' },
        pageNumber: { type: 'keyword' },
        sourceType: { type: 'keyword' },
        sourceId: { type: 'keyword' },
        chunkIndex: { type: 'integer' },
        text: {
          type: 'text',
          analyzer: 'english',
          fields: { plain: { type: 'text', analyzer: 'standard' } },
        },
        documentTitle: { type: 'text', analyzer: 'english' },
        documentTerms: { type: 'text', analyzer: 'english' },
        section: { type: 'text', analyzer: 'english' },
        embedding: {
          type: 'dense_vector',
          dims: space.dimensions,
          index: true,
          similarity: 'cosine',
          index_options: { type: 'int8_hnsw', m: 16, ef_construction: 100 },
        },
      },
    },
  };
}

/** Lowercase, no leading `-_+`, none of `\/*?"<>| ,#:`; ES's own rules for index names. */
function assertIndexPrefix(prefix: string): void {
  if (!/^[a-z0-9][a-z0-9._-]{0,150}$/.test(prefix)) {
    throw new Error(`SEARCH_INDEX_PREFIX "${prefix}" is not a valid Elasticsearch index name prefix`);
  }
}

/**
 * Elasticsearch adapter. Writes and reads go through the alias `<prefix>`, which points at the
 * versioned index `<prefix>-v<layout>-<model>-<dims>` created from a composable index template of
 * the same name. A new layout or embedder is a new index: on first use the alias is moved to it
 * (copying chunks over when the embedding space is unchanged).
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
  private ready?: Promise<void>;
  private setUpDone = false;
  /** Chunk counts by account and docsets (`scopeSize`). */
  private readonly scopeSizes = new Map<string, { count: number; at: number }>();

  constructor(private readonly o: ElasticsearchSearchIndexOptions) {
    assertIndexPrefix(o.prefix);
    this.deadlines = { ...DEFAULT_SEARCH_DEADLINES, ...(o.deadlines ?? {}) };
    this.probeIndex = `${o.prefix}-health`;
    // Bulk requests of a few MB can take tens of seconds on a busy node; health has its own 3 s bound.
    this.client = new Client({ node: o.url, requestTimeout: 90000, maxRetries: 2 });
    this.alias = o.prefix;
    this.indexName = versionedIndexName(o.prefix, o.space, o.layoutVersion ?? INDEX_LAYOUT_VERSION);
  }

  /**
   * Creates template, index and alias once per process; migrates from an older index if needed.
   * A caller's signal only stops its own wait: the set-up is shared and runs on.
   */
  ensureIndex(signal?: AbortSignal): Promise<void> {
    this.ready ??= this.setUp().then(
      () => {
        this.setUpDone = true;
      },
      (err: unknown) => {
        this.ready = undefined;
        throw normaliseError(err);
      },
    );
    return abortable(this.ready, signal);
  }

  private async setUp(): Promise<void> {
    await this.createProbeIndex();
    const layoutVersion = this.o.layoutVersion ?? INDEX_LAYOUT_VERSION;
    const tpl = chunkIndexTemplate(this.o.space, layoutVersion);
    await this.client.indices.putIndexTemplate({
      name: this.indexName,
      index_patterns: [this.indexName],
      priority: 200,
      template: tpl,
      _meta: { description: 'DocQA chunk index', layoutVersion },
    });
    if (!(await this.client.indices.exists({ index: this.indexName }))) {
      try {
        await this.client.indices.create({ index: this.indexName });
      } catch (err) {
        // another process created it first
        if (!(
          err instanceof esErrors.ResponseError &&
          err.body?.error?.type === 'resource_already_exists_exception'
        )) {
          throw err;
        }
      }
    }
    const current = await this.aliasTargets();
    if (current.length === 1 && current[0] === this.indexName) return;
    if (current.length === 0) {
      if (await this.client.indices.exists({ index: this.alias })) {
        throw new Error(`SEARCH_INDEX_PREFIX "${this.alias}" names an existing index, not an alias`);
      }
      await this.client.indices.updateAliases({
        actions: [{ add: { index: this.indexName, alias: this.alias, is_write_index: true } }],
      });
      return;
    }
    await this.migrateFrom(current);
  }

  /** The small index the write probe of `health` writes to (one document, overwritten). */
  private async createProbeIndex(): Promise<void> {
    try {
      await this.client.indices.create({
        index: this.probeIndex,
        settings: { number_of_shards: 1, auto_expand_replicas: '0-1' },
        mappings: { dynamic: false, properties: { at: { type: 'date' } } },
      });
    } catch (err) {
      if (!(
        err instanceof esErrors.ResponseError && err.body?.error?.type === 'resource_already_exists_exception'
      ))
        throw err;
    }
  }

  private async aliasTargets(): Promise<string[]> {
    try {
      const r = await this.client.indices.getAlias({ name: this.alias });
      return Object.keys(r);
    } catch (err) {
      if (err instanceof esErrors.ResponseError && err.statusCode === 404) return [];
      throw err;
    }
  }

  /**
   * Upgrade path: the alias points at an older index. Same embedding space: copy every chunk into
   * the new index (scroll + bulk, so it needs no reindex module), swap the alias atomically, delete
   * the old index. Different embedder: vectors cannot be reused, so the alias moves to the new,
   * empty index and the old one is kept until documents are re-indexed (forceReindex).
   */
  private async migrateFrom(oldIndices: string[]): Promise<void> {
    const sameSpace: string[] = [];
    for (const old of oldIndices) {
      const m = await this.client.indices.getMapping({ index: old });
      const meta = m[old]?.mappings?._meta ?? {};
      if (meta.embeddingModel === this.o.space.modelName && meta.dimensions === this.o.space.dimensions) {
        sameSpace.push(old);
      }
    }
    for (const old of sameSpace) {
      this.log.log(`copying chunks from ${old} to ${this.indexName}`);
      const failures: ChunkFailure[] = [];
      // Ids are copied as they are: they carry the chunk's generation, which no field stores.
      await this.client.helpers.bulk<{ id: string; doc: ChunkDoc }>({
        datasource: this.scrollHits(old),
        onDocument: (h) => [{ index: { _index: this.indexName, _id: h.id } }, h.doc],
        onDrop: (d) => failures.push({ id: d.document.id, reason: dropReason(d.error) }),
        refreshOnCompletion: this.indexName,
      });
      if (failures.length) throw new PartialIndexingError(0, failures);
    }
    await this.client.indices.updateAliases({
      actions: [
        ...oldIndices.map((index) => ({ remove: { index, alias: this.alias } })),
        { add: { index: this.indexName, alias: this.alias, is_write_index: true } },
      ],
    });
    for (const old of sameSpace) await this.client.indices.delete({ index: old });
    const kept = oldIndices.filter((i) => !sameSpace.includes(i));
    if (kept.length) {
      this.log.warn(
        `embedder changed: alias ${this.alias} now points at the empty ${this.indexName}; ` +
          `kept ${kept.join(', ')} for rollback. Re-index documents (forceReindex), then delete the old index.`,
      );
    }
  }

  private async *scrollHits(index: string): AsyncGenerator<{ id: string; doc: ChunkDoc }> {
    for await (const page of this.client.helpers.scrollSearch<ChunkDoc>({
      index,
      size: 1000,
      query: { match_all: {} },
    })) {
      for (const h of page.body.hits.hits) yield { id: h._id as string, doc: h._source as ChunkDoc };
    }
  }

  /**
   * One engine call bounded by `ms`: its requests carry an AbortSignal that fires at the deadline or
   * when the caller's signal aborts. A missed deadline is DEPENDENCY_UNAVAILABLE (logged with what
   * it was); a cancelled caller gets its signal's reason.
   */
  private async call<T>(
    what: string,
    ms: number,
    fn: (signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const ac = new AbortController();
    const deadline = new DeadlineExceededError(`elasticsearch ${what}`, ms);
    const timer = setTimeout(() => ac.abort(deadline), ms);
    const onAbort = () => ac.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // The race answers at the deadline even if a client call ignores its signal.
      return await withDeadline(fn(ac.signal), ms, `elasticsearch ${what}`, ac.signal);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (ac.signal.aborted || err instanceof DeadlineExceededError) {
        this.log.warn(`Elasticsearch did not answer: ${deadline.message}`);
        throw searchTimedOut();
      }
      throw normaliseError(err);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
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
    const stored = storedAccountId(accountId);
    return this.call(
      'delete',
      this.deadlines.writeMs,
      async (signal) => {
        await this.ensureIndex(signal);
        const r = await this.client.deleteByQuery(
          {
            index: this.alias,
            query: { bool: { filter: [{ term: { accountId: stored } }, ...extra] } },
            conflicts: 'proceed',
            refresh: true,
          },
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
      return runSearch(
        withFusionMethod(q, this.o.fusion),
        {
          bm25: (query, size) => this.bm25(query, size, signal),
          vector: (query, size) => this.knn(query, size, signal),
          documents: (query, size) => this.documents(query, size, signal),
        },
        this.o.space.dimensions,
      );
    });
  }

  async chunksById(q: ChunksByIdQuery): Promise<StoredChunk[]> {
    checkChunksById(q);
    if (q.ids.length === 0 || q.docSetNames.length === 0) return [];
    return this.call('chunksById', this.deadlines.readMs, async (signal) => {
      await this.ensureIndex(signal);
      const r = await this.client.search<ChunkDoc>({ index: this.alias, ...this.chunksOf(q) }, { signal });
      return r.hits.hits.map(toChunk);
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
      const scope = this.scope({ storedAccountId: storedAccountId(q.accountId), docSetNames: q.docSetNames });
      const bodies: estypes.MsearchMultisearchBody[] = [
        ...(q.ids.length ? [this.chunksOf(q)] : []),
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

  /** The search body of chunksById. */
  private chunksOf(q: ChunksByIdQuery) {
    return {
      size: q.ids.length,
      _source: SOURCE_FIELDS,
      track_total_hits: false,
      query: {
        bool: {
          filter: [
            ...this.scope({ storedAccountId: storedAccountId(q.accountId), docSetNames: q.docSetNames }),
            { ids: { values: q.ids } },
          ],
        },
      },
    };
  }

  /** Filter every query carries: the account and its requested docsets (and routed documents). */
  private scope(
    q: Pick<LegQuery, 'storedAccountId' | 'docSetNames' | 'documentIds'>,
  ): estypes.QueryDslQueryContainer[] {
    return [
      { term: { accountId: q.storedAccountId } },
      { terms: { docSetName: q.docSetNames } },
      ...(q.documentIds ? [{ terms: { documentId: q.documentIds } }] : []),
    ];
  }

  private async bm25(q: LegQuery, size: number, signal: AbortSignal): Promise<LegHit[]> {
    const r = await this.client.search<ChunkDoc>(
      {
        index: this.alias,
        size,
        _source: SOURCE_FIELDS,
        track_total_hits: false,
        query: bm25Query(q.text, this.scope(q), q.fieldBoosts),
      },
      { signal },
    );
    return r.hits.hits.map((h) => ({ chunk: toChunk(h), score: h._score ?? 0 }));
  }

  /** Documents whose context (title, identifying terms) matches: one row per document (chunk 0). */
  private async documents(q: LegQuery, size: number, signal: AbortSignal): Promise<DocumentHit[]> {
    const r = await this.client.search<ChunkDoc>(
      {
        index: this.alias,
        size,
        _source: ['documentId'],
        track_total_hits: false,
        query: {
          bool: {
            filter: [...this.scope(q), { term: { chunkIndex: 0 } }],
            must: [
              {
                multi_match: {
                  query: contextQueryText(q.text),
                  fields: ['documentTitle', 'documentTerms'],
                  type: 'most_fields',
                },
              },
            ],
          },
        },
      },
      { signal },
    );
    return r.hits.hits.map((h) => ({ documentId: (h._source as ChunkDoc).documentId, score: h._score ?? 0 }));
  }

  private async knn(
    q: LegQuery & { vector: number[] },
    size: number,
    signal: AbortSignal,
  ): Promise<LegHit[]> {
    // Which neighbours the HNSW graph finds depends on how the chunks fell into segments (flushes,
    // merges), so an approximate search differs between two indexings of the same docset: for a
    // docset small enough, the count picks an exact search instead (knnCandidates).
    const filter = this.scope(q);
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
        knn: {
          field: 'embedding',
          query_vector: q.vector,
          k: size,
          num_candidates: knnCandidates(size, matching),
          filter,
        },
      },
      { signal },
    );
    const hits: LegHit[] = [];
    for (const h of r.hits.hits) {
      const stored = (h._source as ChunkDoc).embedding;
      // cosine _score is (1 + cos) / 2 (the graph's estimate, for a row stored without a vector)
      const similarity = stored ? cosine(q.vector, stored) : 2 * (h._score ?? 0) - 1;
      if (similarity >= q.minimumSimilarityScore) hits.push({ chunk: toChunk(h), score: similarity });
    }
    return hits.sort((a, b) => b.score - a.score);
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
        query: { bool: { filter: this.scope({ ...q, documentIds: undefined }) } },
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
    const stored = accountId === undefined ? undefined : storedAccountId(accountId);
    const r = await this.call('count', this.deadlines.readMs, async (signal) => {
      await this.ensureIndex(signal);
      return this.client.count(
        { index: this.alias, query: stored ? { term: { accountId: stored } } : { match_all: {} } },
        { signal },
      );
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

  /** A cluster's state costs a call: each write finds out for itself, within its own deadline. */
  writesBlocked(): string | undefined {
    return undefined;
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
    const settingUp = !this.setUpDone;
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

  /** Nothing to do: every write waited for the refresh that makes it searchable. */
  async settle(): Promise<void> {}

  async close(o: { timeoutMs?: number } = {}): Promise<void> {
    await withDeadline(this.client.close(), o.timeoutMs ?? 10_000, 'elasticsearch client close');
  }
}

/**
 * BM25 leg: the English-analysed text (stemmed, stop words removed) plus its standard-analysed
 * subfield, so exact word forms score above mere stem matches, and the document context fields
 * with their boosts; the query's dates are added as date tokens (see `contextQueryText`).
 */
export function bm25Query(
  text: string,
  filter: estypes.QueryDslQueryContainer[],
  boosts: Partial<FieldBoosts> = {},
): estypes.QueryDslQueryContainer {
  const b = { ...DEFAULT_FIELD_BOOSTS, ...boosts };
  return {
    bool: {
      filter,
      must: [
        {
          multi_match: {
            query: contextQueryText(text),
            fields: [
              'text',
              'text.plain^0.5',
              `section^${b.section}`,
              `documentTitle^${b.documentTitle}`,
              `documentTerms^${b.documentTerms}`,
            ],
            type: 'most_fields',
          },
        },
      ],
    },
  };
}

/**
 * 6 decimals keep cosine exact to ~1e-6 (the index quantises to int8) and halve the JSON size. The
 * generation lives in the id only (the mapping is strict).
 */
function toDoc({ generation: _generation, ...c }: ChunkRecord): ChunkDoc {
  return {
    ...c,
    accountId: storedAccountId(c.accountId),
    embedding: c.embedding.map((x) => Math.round(x * 1e6) / 1e6),
  };
}

function toChunk(h: estypes.SearchHit<ChunkDoc>): StoredChunk {
  const s = h._source as ChunkDoc;
  return {
    id: h._id ?? chunkId(s.documentId, s.chunkIndex),
    accountId: Number(s.accountId),
    docSetName: s.docSetName,
    documentId: s.documentId,
    fileName: s.fileName,
    pageNumber: s.pageNumber,
    sourceType: s.sourceType,
    sourceId: s.sourceId,
    chunkIndex: s.chunkIndex,
    text: s.text,
    documentTitle: s.documentTitle ?? '',
    documentTerms: s.documentTerms ?? '',
    section: s.section ?? '',
  };
}

function dropReason(error: unknown): string {
  const e = error as { type?: string; reason?: string } | null;
  return e?.type ? `${e.type}: ${e.reason ?? ''}`.slice(0, 500) : 'rejected by Elasticsearch';
}

/** Connection failures become DEPENDENCY_UNAVAILABLE; the rest keep their type, minus payloads. */
function normaliseError(err: unknown): unknown {
  if (err instanceof PartialIndexingError || err instanceof DomainError || err instanceof RangeError)
    return err;
  if (
    err instanceof esErrors.ConnectionError ||
    err instanceof esErrors.TimeoutError ||
    err instanceof esErrors.NoLivingConnectionsError
  ) {
    return new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Search engine unavailable');
  }
  if (err instanceof esErrors.ResponseError) {
    const type = (err.body as { error?: { type?: string; reason?: string } })?.error;
    return new Error(
      `Elasticsearch ${err.statusCode}: ${type?.type ?? 'error'} ${type?.reason ?? ''}`.trim(),
    );
  }
  return err;
}
