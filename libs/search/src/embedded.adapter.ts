import * as lancedb from '@lancedb/lancedb';
import { Logger } from '@nestjs/common';
import * as fs from 'node:fs';
import { type EmbeddingSpace } from '@docqa/common';
import { withFusionMethod } from './fusion';
import { LegHit, LegQuery, RetrievalLegs, runLegs, runSearch } from './retrieval-legs';
import { DocumentHit } from './routing';
import { EMBEDDED_LAYOUT_VERSION, partitionChunks } from './index-version';
import { COLUMNS, plainRows, Row, toChunk, toRow } from './embedded-layout';
import { EmbeddedGate } from './embedded-gate';
import { EmbeddedMaintenance, type MaintenanceTrigger } from './embedded-maintenance';
import {
  bm25Query,
  chunksByIdPredicate,
  docSetPredicate,
  documentChunksPredicate,
  documentPredicate,
  documentsPredicate,
  documentsQuery,
  probeQuery,
  scopePredicate,
  similarHits,
  statsPredicate,
} from './embedded-query';
import { EmbeddedTable } from './embedded-table';
import { EmbeddedWrites } from './embedded-writes';
import { configureLanceRuntime } from './lance-runtime';
import { PartialIndexingError } from './search.errors';
import type { SearchMaintenance } from './search-maintenance';
import {
  checkChunksAndTerms,
  ChunksAndTerms,
  ChunksAndTermsQuery,
  termProbe,
  chunkId,
  ChunkRecord,
  ChunksByIdQuery,
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
  StoredChunk,
  UpsertResult,
  WriteOptions,
} from './search.port';

export { FTS_COLUMN_OPTIONS, sqlString } from './embedded-layout';
export { cleanupCutoff } from './embedded-maintenance';

export interface EmbeddedSearchIndexOptions {
  /** Directory of the tables (DATA_DIR/search). */
  dir: string;
  space: EmbeddingSpace;
  /** Idle time after the last write before indices are brought up to date (default 2 s). */
  optimizeDelayMs?: number;
  /** Deadlines of engine calls (SEARCH_*_TIMEOUT_MS); defaults DEFAULT_SEARCH_DEADLINES. */
  deadlines?: Partial<SearchDeadlines>;
  /** Fusion of hybrid searches that do not name one (SEARCH_FUSION); default DEFAULT_FUSION_METHOD. */
  fusion?: FusionMethod;
  /** MiB the engine's index and metadata caches may hold (SEARCH_EMBEDDED_CACHE_MB; default DEFAULT_CACHE_MB). */
  cacheMb?: number;
  /** Age below which maintenance keeps a table version (default KEEP_VERSIONS_MS; tests lower it). */
  keepVersionsMs?: number;
  /** Maintenance runs after which the engine is opened afresh (default REOPEN_EVERY_MAINTENANCE_RUNS). */
  reopenEveryMaintenanceRuns?: number;
  /** Give memory the engine freed back to the system after each maintenance run (SEARCH_EMBEDDED_RELEASE_MEMORY; default true). */
  releaseFreedMemory?: boolean;
  /** Reads at least this slow are logged with the engine's state (default SLOW_READ_MS). */
  slowReadMs?: number;
}

// Before the engine's compute pool exists (it is sized once, on first use): a one-thread pool
// deadlocks the full-text index builder (lance-runtime.ts).
const LANCE_RUNTIME = configureLanceRuntime();

/**
 * Embedded engine: LanceDB tables on disk under DATA_DIR/search (see docs/search-engine.md). One
 * table per layout version and embedding space. BM25 comes from the engine's inverted index
 * (rows not yet indexed are searched by a flat scan, so writes are visible at once); vectors are
 * searched exactly (flat, cosine) with the same account/docset prefilter. One instance per data
 * directory and process: writes go through a mutex, index maintenance runs when writes go idle.
 *
 * A thin facade over its parts: the table handle (EmbeddedTable), the write gate and deadlines
 * (EmbeddedGate), the write path (EmbeddedWrites), index maintenance (EmbeddedMaintenance) and the
 * query translation (embedded-query.ts).
 */
export class EmbeddedSearchIndex implements SearchIndex, SearchMaintenance {
  readonly engine = 'embedded' as const;
  readonly tableName: string;
  private readonly log = new Logger('EmbeddedSearchIndex');
  private readonly table: EmbeddedTable;
  private readonly gate: EmbeddedGate;
  private readonly maintenance: EmbeddedMaintenance;
  private readonly writes: EmbeddedWrites;

  constructor(private readonly o: EmbeddedSearchIndexOptions) {
    fs.mkdirSync(o.dir, { recursive: true });
    if (LANCE_RUNTIME.threads < 2)
      this.log.warn(
        `LANCE_CPU_THREADS=${LANCE_RUNTIME.threads}: the full-text index builder can deadlock with fewer than 2 compute threads; unset it or raise it`,
      );
    this.table = new EmbeddedTable(o);
    this.tableName = this.table.name;
    this.gate = new EmbeddedGate(this.table, {
      deadlines: { ...DEFAULT_SEARCH_DEADLINES, ...(o.deadlines ?? {}) },
      slowReadMs: o.slowReadMs,
      engineState: (started) =>
        `${this.maintenance.describe(started)}, ${this.table.runsSinceOpen} runs since the handle opened`,
    });
    this.maintenance = new EmbeddedMaintenance(this.table, this.gate, {
      optimizeDelayMs: o.optimizeDelayMs,
      keepVersionsMs: o.keepVersionsMs,
      releaseFreedMemory: o.releaseFreedMemory,
      onCompacted: (rows) => this.writes.compacted(rows),
    });
    this.writes = new EmbeddedWrites(this.table, this.gate, o.space.dimensions, (rows) =>
      this.maintenance.afterWrite(rows),
    );
  }

  /** Index maintenance runs finished since this instance opened and the engine time they took. */
  maintenanceTotals(): { runs: number; ms: number } {
    return this.maintenance.totals();
  }

  /** Bytes the engine's caches hold now (by the engine's own accounting): for tests and benchmarks. */
  cacheBytes(): number {
    return this.table.cacheBytes();
  }

  async upsert(chunks: ChunkRecord[], o: WriteOptions = {}): Promise<UpsertResult> {
    const { valid, failures } = partitionChunks(chunks, this.o.space.dimensions, (c) =>
      chunkId(c.documentId, c.chunkIndex, c.generation),
    );
    if (valid.length) await this.writes.upsert(valid.map(toRow), o.signal);
    if (failures.length) throw new PartialIndexingError(valid.length, failures);
    return { indexed: valid.length };
  }

  deleteByDocument(accountId: number, documentId: string, o?: WriteOptions): Promise<number> {
    return this.writes.deleteWhere(accountId, documentPredicate(documentId), o?.signal);
  }

  async deleteChunks(
    accountId: number,
    documentId: string,
    generation: number,
    chunkCount: number,
    o?: WriteOptions,
  ): Promise<number> {
    return deleteGenerationInBatches(documentId, generation, chunkCount, (ids) =>
      this.writes.deleteWhere(accountId, documentChunksPredicate(documentId, ids), o?.signal),
    );
  }

  deleteByDocSet(accountId: number, docSetName: string, o?: WriteOptions): Promise<number> {
    return this.writes.deleteWhere(accountId, docSetPredicate(docSetName), o?.signal);
  }

  deleteByAccount(accountId: number, o?: WriteOptions): Promise<number> {
    return this.writes.deleteWhere(accountId, undefined, o?.signal);
  }

  search(q: SearchQuery): Promise<SearchHit[]> {
    return this.gate.read('search', (t) => this.runSearch(t, q));
  }

  private runSearch(t: lancedb.Table, q: SearchQuery): Promise<SearchHit[]> {
    return runSearch(withFusionMethod(q, this.o.fusion), this.legs(t), this.o.space.dimensions);
  }

  async chunksAndTerms(q: ChunksAndTermsQuery): Promise<ChunksAndTerms> {
    checkChunksAndTerms(q);
    if (q.docSetNames.length === 0 || (q.ids.length === 0 && q.terms.length === 0))
      return { chunks: [], termsFound: q.terms.map(() => false) };
    return this.gate.read('chunksAndTerms', async (t) => {
      const [chunks, termsFound] = await Promise.all([
        q.ids.length ? this.chunksOf(t, q) : Promise.resolve([]),
        Promise.all(q.terms.map((text) => this.runSearch(t, termProbe(q, text)).then((r) => r.length > 0))),
      ]);
      return { chunks, termsFound };
    });
  }

  private async chunksOf(t: lancedb.Table, q: ChunksByIdQuery): Promise<StoredChunk[]> {
    const rows = await plainRows<Row>(
      t.query().where(chunksByIdPredicate(q)).select(COLUMNS).limit(q.ids.length),
    );
    return rows.map(toChunk);
  }

  /** The retrieval legs on one table handle; runSearch fuses them. */
  private legs(t: lancedb.Table): Required<RetrievalLegs> {
    return {
      bm25: async (q: LegQuery, size: number): Promise<LegHit[]> => {
        if (!this.table.ftsReady) return []; // nothing was ever written
        const rows = await plainRows<Row & { _score: number }>(
          t
            .query()
            .fullTextSearch(bm25Query(q))
            .where(scopePredicate(q))
            .select([...COLUMNS, '_score'])
            .limit(size),
        );
        return rows.map((r) => ({ chunk: toChunk(r), score: r._score }));
      },
      vector: async (q: LegQuery & { vector: number[] }, size: number): Promise<LegHit[]> => {
        const rows = await plainRows<Row & { _distance: number }>(
          t
            .query()
            .nearestTo(q.vector)
            .distanceType('cosine')
            .where(scopePredicate(q))
            .select([...COLUMNS, '_distance'])
            .limit(size),
        );
        return similarHits(rows, q.minimumSimilarityScore);
      },
      // Documents ranked by their context fields; chunk 0 stands for its document (one row each).
      documents: async (q: LegQuery, size: number): Promise<DocumentHit[]> => {
        if (!this.table.ftsReady) return [];
        const rows = await plainRows<{ document_id: string; doc_title: string | null; _score: number }>(
          t
            .query()
            .fullTextSearch(documentsQuery(q))
            .where(documentsPredicate(q))
            .select(['document_id', 'doc_title', '_score'])
            .limit(size),
        );
        return rows.map((r) => ({
          documentId: r.document_id,
          score: r._score,
          title: r.doc_title || undefined,
        }));
      },
    };
  }

  async stats(accountId?: number): Promise<SearchIndexStats> {
    const predicate = statsPredicate(accountId);
    const counted = await this.gate.read('count', (t) => t.countRows(predicate));
    const chunks = predicate || !this.table.probeRow ? counted : counted - 1;
    return {
      engine: this.engine,
      indexName: this.tableName,
      indexVersion: EMBEDDED_LAYOUT_VERSION,
      embeddingModel: this.o.space.modelName,
      dimensions: this.o.space.dimensions,
      chunks,
    };
  }

  /**
   * Runs the pending index maintenance now instead of after the idle delay (SearchMaintenance;
   * EmbeddedMaintenance.settle says why).
   */
  settle(): Promise<void> {
    return this.maintenance.settle();
  }

  /**
   * Compacts files, updates indices with unindexed rows, drops old versions, under the write lock
   * (EmbeddedMaintenance.optimize).
   */
  optimize(trigger: MaintenanceTrigger = 'call'): Promise<void> {
    return this.maintenance.optimize(trigger);
  }

  /** Why a write would not get its turn now (SearchMaintenance; EmbeddedGate.writesBlocked). */
  writesBlocked(): string | undefined {
    return this.gate.writesBlocked();
  }

  /**
   * Read probe: a filtered query through the engine's scan path (it decodes on the engine's
   * compute pool, the part that wedged in issue #13); none is started while an earlier read is
   * still running past its deadline, so probes never pile up on a wedged engine. Write probe:
   * `writesBlocked` finds nothing, so a write would get its turn.
   */
  async health(o: { timeoutMs?: number } = {}): Promise<EngineHealth> {
    const ms = o.timeoutMs ?? 3000;
    const problems: string[] = [];
    let read: ProbeStatus = 'down';
    if (this.gate.overdueReads > 0) {
      // an earlier read has not answered yet: probing again would only add to the pile
      problems.push(`${this.gate.overdueReads} read(s) running past their deadline`);
    } else {
      try {
        await this.gate.read<unknown>(
          'health probe',
          (t) => {
            if (!this.table.probeRow) return t.countRows(); // nothing was ever written: nothing to decode
            const { bm25, vector } = this.legs(t);
            return runLegs(probeQuery(this.o.space.dimensions), { bm25, vector }, this.o.space.dimensions);
          },
          ms,
        );
        read = 'up';
      } catch {
        problems.push(`no read answered within ${ms} ms`);
      }
    }
    // the data directory is looked at here, not in writesBlocked, which indexing asks per batch
    const blocked =
      this.writesBlocked() ?? (fs.existsSync(this.o.dir) ? undefined : 'data directory missing');
    const write: ProbeStatus = blocked ? 'down' : 'up';
    if (blocked) problems.push(blocked);
    const up = read === 'up' && write === 'up';
    return {
      engine: this.engine,
      up,
      read,
      write,
      detail: up ? `lancedb ${this.tableName}` : `lancedb ${this.tableName}: ${problems.join('; ')}`,
    };
  }

  /**
   * Stops index maintenance timers, brings the indices up to date if writes were pending, and
   * closes the table once the write lock is free, all within `timeoutMs`; rejects naming what is
   * still running when the engine does not let go (a wedged native call cannot be interrupted).
   */
  async close(o: { timeoutMs?: number } = {}): Promise<void> {
    if (this.table.closed) return;
    const deadline = Date.now() + (o.timeoutMs ?? 10_000);
    const left = () => Math.max(1, deadline - Date.now());
    await this.maintenance.beforeClose(left);
    this.table.closed = true;
    const release = await this.gate.acquireForClose(left());
    try {
      await this.table.closeAll();
    } finally {
      release();
    }
  }
}
