import * as lancedb from '@lancedb/lancedb';
import { Logger } from '@nestjs/common';
import * as fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeadlineExceededError,
  DeadlineLock,
  docqaMetrics,
  type EmbeddingSpace,
  releaseFreedNativeMemory,
  withDeadline,
} from '@docqa/common';
import {
  contextQueryText,
  DEFAULT_FIELD_BOOSTS,
  DocumentHit,
  LegHit,
  LegQuery,
  runLegs,
  runSearch,
  withFusionMethod,
  storedAccountId,
} from './fusion';
import { EMBEDDED_LAYOUT_VERSION, embeddedTableName, partitionChunks } from './index-version';
import {
  COLUMNS,
  FTS_COLUMN_OPTIONS,
  FTS_COLUMNS,
  type FtsColumn,
  idHash,
  PLAIN_TEXT_BOOST,
  Row,
  schema,
  sqlString,
  toChunk,
  toRow,
  upgradeRow,
} from './embedded-layout';
import { configureLanceRuntime } from './lance-runtime';
import { PartialIndexingError, searchTimedOut } from './search.errors';
import {
  checkChunksAndTerms,
  checkChunksById,
  ChunksAndTerms,
  ChunksAndTermsQuery,
  termProbe,
  chunkId,
  ChunkRecord,
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
  UpsertResult,
  WriteOptions,
} from './search.port';

export { FTS_COLUMN_OPTIONS, sqlString } from './embedded-layout';

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

/** What started an index maintenance run (the label of docqa_search_maintenance_duration_seconds). */
type MaintenanceTrigger = 'idle' | 'writes' | 'rows' | 'settle' | 'close' | 'call';

/** Rows of one upsert call waiting to be written; `written` once a lock holder took them. */
interface QueuedRows {
  rows: Row[];
  written?: Promise<void>;
}

// Before the engine's compute pool exists (it is sized once, on first use): a one-thread pool
// deadlocks the full-text index builder (lance-runtime.ts).
const LANCE_RUNTIME = configureLanceRuntime();

/** Rows per merge-insert call: bounds memory of one write. */
const WRITE_BATCH = 5000;
/** Write calls after which index maintenance runs even if writes never go idle (scheduleOptimize). */
const MAINTENANCE_EVERY_WRITES = 200;
/** ... and at least one write call per this many stored rows (100,000 rows: every 1,000 writes). */
const ROWS_PER_MAINTENANCE_WRITE = 100;
/**
 * ... and once the rows written since the last run reach this share of the table (at least
 * UNINDEXED_ROWS_MIN): rows not yet in the indices are searched flat, so every search pays for
 * each of them (20 ms on a maintained table of 3,000 rows, 90-170 ms with 500-1,000 rows unindexed,
 * on an idle machine), while a run costs in proportion to the table (0.3 s at 3,000 rows, 1.6 s at
 * 30,000). On a small table writes of many rows reached thousands unindexed before
 * MAINTENANCE_EVERY_WRITES; on a large one the write count decides as before. Searches during a bulk
 * write: 1.7-2x faster at p50 (docs/benchmarks/search.md, "Searches while the embedded engine is written to").
 */
const UNINDEXED_SHARE = 0.1;
const UNINDEXED_ROWS_MIN = 500;
/**
 * Table versions younger than this survive maintenance. Every write makes a version, and
 * maintenance reads the versions it keeps: kept 10 minutes, a library indexed at 70 writes/s made
 * each run at 12,000 rows take twice as long (issue 17, docs/benchmarks/sharepoint.md). Versions a
 * running search may be reading are kept however old (cleanupCutoff).
 */
const KEEP_VERSIONS_MS = 60_000;
/** ... but none is kept longer than this for a search that never ends (the engine's call is stuck). */
const KEEP_VERSIONS_MAX_MS = 10 * 60_000;

/**
 * Versions created before the returned time may be cleaned up: older than `keepMs`, and older than
 * the version any running read may be reading. `readFloors` holds, per read still running in the
 * engine, a time no later than the creation of the version it reads (EmbeddedSearchIndex.read).
 * A second of margin covers the clock's granularity; never earlier than KEEP_VERSIONS_MAX_MS ago.
 */
export function cleanupCutoff(now: number, keepMs: number, readFloors: Iterable<number>): Date {
  let cutoff = now - keepMs;
  for (const floor of readFloors) cutoff = Math.min(cutoff, floor - 1000);
  return new Date(Math.max(cutoff, now - KEEP_VERSIONS_MAX_MS));
}

/**
 * Maintenance runs after which the connection, its caches and the table handle are opened afresh
 * (reopen). A long-lived handle grows slower as versions go by, whatever the table's size: a
 * table dropped and created again every 10,000 rows took 22, 31 and 39 s of maintenance for its
 * 1st, 2nd and 3rd 10,000 rows on one connection and 21, 20 and 22 s when each came with a new one;
 * a growing table written 2 rows at a time (40,000 rows) needed 0.79x the maintenance and
 * 0.82x the time, and its searches took 124 ms instead of 707 (docs/benchmarks/sharepoint.md).
 */
const REOPEN_EVERY_MAINTENANCE_RUNS = 10;

/** Reads slower than this are logged with the engine's state (noteSlowRead). */
const SLOW_READ_MS = 1000;

/** MiB of engine caches when the options name none (SEARCH_EMBEDDED_CACHE_MB's default). */
const DEFAULT_CACHE_MB = 256;
/** settle() keeps index maintenance to at most about 1 / (1 + this) of the time. */
const SETTLE_DUTY_FACTOR = 4;
/**
 * The engine's caches, bounded. Its defaults (6 GiB of index data, 1 GiB of file metadata) are
 * filled by every table version: each write and each maintenance run makes new files and index
 * parts, and the replaced ones stay cached until the bound, so a long indexing run grew the process
 * by about 100 MB per 1,000 writes (issue 17). Three quarters go to index data.
 */
function engineSession(cacheMb: number): lancedb.Session {
  const bytes = BigInt(Math.max(16, cacheMb)) * 2n ** 20n;
  return new lancedb.Session((bytes * 3n) / 4n, bytes / 4n);
}

/** Closes a table handle replaced by a reopen and the connection it came from. */
function closeHandle(t: lancedb.Table, db: lancedb.Connection): void {
  t.close();
  db.close();
}

/**
 * One row the read probe of `health` searches for, so the probe runs the real search path (the
 * full-text and vector legs decode rows on the engine's compute pool, the part that wedged in
 * issue #13). Its account id is not a real one, and every search and delete is account-scoped.
 */
const PROBE = { accountId: '__health_probe__', docSetName: '__health_probe__', text: 'docqa health probe' };

/** Reads past their deadline that may still be running before new reads fail at once. */
const MAX_OVERDUE_READS = 4;

const noop = () => undefined;

/**
 * Embedded engine: LanceDB tables on disk under DATA_DIR/search (see docs/search-engine.md). One
 * table per layout version and embedding space. BM25 comes from the engine's inverted index
 * (rows not yet indexed are searched by a flat scan, so writes are visible at once); vectors are
 * searched exactly (flat, cosine) with the same account/docset prefilter. One instance per data
 * directory and process: writes go through a mutex, index maintenance runs when writes go idle.
 */
export class EmbeddedSearchIndex implements SearchIndex {
  readonly engine = 'embedded' as const;
  readonly tableName: string;
  private readonly log = new Logger('EmbeddedSearchIndex');
  private readonly deadlines: SearchDeadlines;
  /** Writes and index maintenance take turns; a holder keeps it until its engine call has ended. */
  private readonly writes = new DeadlineLock();
  /** When the current holder got the write lock (undefined while it is free). */
  private writeHeldSince?: number;
  /** Engine writes (maintenance included) still running past their deadline. */
  private overdueWrites = 0;
  /** Engine reads still running past their deadline. */
  private overdueReads = 0;
  /**
   * When the last write that committed a table version started: the version any read starting now
   * reads (the latest, or one a running write is making) was created no earlier. 0 until this
   * instance has committed one. A write that commits nothing (one that failed) leaves it alone.
   */
  private versionFloor = 0;
  /** The versionFloor of each read still running in the engine (cleanupCutoff). */
  private readonly readFloors = new Map<object, number>();
  private db?: Promise<lancedb.Connection>;
  private table?: Promise<lancedb.Table>;
  private ftsReady = false;
  /** The probe row exists (written with the first write of a table). */
  private probeRow = false;
  private optimizeTimer?: NodeJS.Timeout;
  /** Write calls since index maintenance last started, and whether it is running (scheduleOptimize). */
  private writesSinceMaintenance = 0;
  private maintenanceEvery = MAINTENANCE_EVERY_WRITES;
  /** Rows written since index maintenance last started, and the table's rows at its last run. */
  private rowsSinceMaintenance = 0;
  private rowsAtMaintenance = 0;
  /** The maintenance run in progress, if any (settle waits for it). */
  private maintenance?: Promise<void>;
  /** When the last maintenance ended and how long it took (settle's pacing). */
  private lastMaintenanceEnd = 0;
  private lastMaintenanceMs = 0;
  /** Maintenance runs finished and their engine time, since this instance opened (maintenanceTotals). */
  private maintenanceRuns = 0;
  private maintenanceMs = 0;
  /** Settle calls waiting for their turn share one wait. */
  private settleWait?: Promise<void>;
  private closed = false;
  /** Rows waiting for the write lock (groupWrite). */
  private readonly upsertQueue: QueuedRows[] = [];
  /** The engine's caches, bounded by cacheMb (engineSession); a new one with each reopen. */
  private session: lancedb.Session;
  /** Maintenance runs since the engine was last opened (reopen). */
  private runsSinceOpen = 0;
  /** Reads and writes still running on each table handle (a replaced one closes when they end). */
  private readonly handleUsers = new Map<lancedb.Table, number>();
  /** Handles replaced by reopen and still in use, with their connections. */
  private readonly retired = new Map<lancedb.Table, lancedb.Connection>();
  /** Hashes of the stored ids (storedIdHashes), once read. */
  private storedIds?: Set<number>;

  constructor(private readonly o: EmbeddedSearchIndexOptions) {
    fs.mkdirSync(o.dir, { recursive: true });
    this.deadlines = { ...DEFAULT_SEARCH_DEADLINES, ...(o.deadlines ?? {}) };
    if (LANCE_RUNTIME.threads < 2)
      this.log.warn(
        `LANCE_CPU_THREADS=${LANCE_RUNTIME.threads}: the full-text index builder can deadlock with fewer than 2 compute threads; unset it or raise it`,
      );
    this.tableName = embeddedTableName(o.space);
    this.session = this.newSession();
  }

  /** New engine caches within cacheMb; one per connection (open, reopen). */
  private newSession(): lancedb.Session {
    return engineSession(this.o.cacheMb ?? DEFAULT_CACHE_MB);
  }

  /** Index maintenance runs finished since this instance opened and the engine time they took. */
  maintenanceTotals(): { runs: number; ms: number } {
    return { runs: this.maintenanceRuns, ms: this.maintenanceMs };
  }

  /** Bytes the engine's caches hold now (by the engine's own accounting): for tests and benchmarks. */
  cacheBytes(): number {
    return Number(this.session.sizeBytes());
  }

  private open(): Promise<lancedb.Table> {
    if (this.closed) return Promise.reject(new Error('embedded search index is closed'));
    this.table ??= (async () => {
      this.db ??= lancedb.connect(this.o.dir, { session: this.session });
      const db = await this.db;
      const t = await db.createEmptyTable(this.tableName, schema(this.o.space.dimensions), {
        existOk: true,
      });
      await this.copyOlderLayouts(db, t);
      const indices = await t.listIndices();
      this.ftsReady = FTS_COLUMNS.every((c) =>
        indices.some((i) => i.columns.includes(c) && i.indexType === 'FTS'),
      );
      this.probeRow = (await t.countRows(`account_id = ${sqlString(PROBE.accountId)}`)) > 0;
      return t;
    })().catch((err: unknown) => {
      this.table = undefined;
      throw err;
    });
    return this.table;
  }

  /**
   * Opens a new connection (with new caches) and table handle in place of `old` (REOPEN_EVERY_
   * MAINTENANCE_RUNS); under the write lock. Calls already running finish on the old handle,
   * which closes when the last of them ends. If the engine cannot open it, the old one stays.
   */
  private async reopen(old: lancedb.Table): Promise<void> {
    this.runsSinceOpen = 0;
    const oldDb = await this.db;
    const session = this.newSession();
    let db: lancedb.Connection | undefined;
    try {
      db = await lancedb.connect(this.o.dir, { session });
      const table = await db.openTable(this.tableName);
      this.session = session;
      this.db = Promise.resolve(db);
      this.table = Promise.resolve(table);
    } catch (err) {
      db?.close();
      this.log.warn(
        `could not open the search table afresh, keeping the open one: ${(err as Error).message}`,
      );
      return;
    }
    if (oldDb) this.retired.set(old, oldDb);
    this.closeIfUnused(old);
  }

  private useHandle(t: lancedb.Table): void {
    this.handleUsers.set(t, (this.handleUsers.get(t) ?? 0) + 1);
  }

  private releaseHandle(t: lancedb.Table): void {
    const n = (this.handleUsers.get(t) ?? 1) - 1;
    if (n > 0) this.handleUsers.set(t, n);
    else this.handleUsers.delete(t);
    this.closeIfUnused(t);
  }

  /**
   * Closes a replaced handle nothing uses, a turn later: a read that took it from open() just
   * before the swap counts itself as a user within the same turn.
   */
  private closeIfUnused(t: lancedb.Table): void {
    if (!this.retired.has(t) || this.handleUsers.has(t)) return;
    setImmediate(() => {
      const db = this.retired.get(t);
      if (!db || this.handleUsers.has(t)) return;
      this.retired.delete(t);
      closeHandle(t, db);
    });
  }

  /**
   * Layout upgrade: chunks of a table of an older layout with the same embedding space are copied
   * in (context fields the old layout lacks are empty until the document is re-indexed; the plain
   * text is the text), then the old table is dropped. Rows already in the new table win, so an interrupted copy is simply redone.
   */
  private async copyOlderLayouts(db: lancedb.Connection, t: lancedb.Table): Promise<void> {
    for (let v = 1; v < EMBEDDED_LAYOUT_VERSION; v++) {
      const old = embeddedTableName(this.o.space, v);
      const from = await db.openTable(old).catch(() => undefined);
      if (!from) continue;
      this.log.log(`copying chunks from ${old} to ${this.tableName}`);
      let copied = 0;
      for await (const batch of from.query()) {
        const rows = batch.toArray().map((r: Record<string, unknown>) => upgradeRow(r));
        if (rows.length === 0) continue;
        await t.mergeInsert('id').whenNotMatchedInsertAll().execute(rows);
        copied += rows.length;
      }
      from.close();
      if (copied > 0) await this.createIndices(t);
      await db.dropTable(old);
      this.log.log(`copied ${copied} chunks from ${old}; dropped it`);
    }
  }

  /** Full-text indices (text and context columns) and the bitmap indices of the filters. */
  private async createIndices(t: lancedb.Table): Promise<void> {
    for (const c of FTS_COLUMNS)
      await t.createIndex(c, { config: lancedb.Index.fts(FTS_COLUMN_OPTIONS[c]), replace: true });
    await t.createIndex('account_id', { config: lancedb.Index.bitmap(), replace: true });
    await t.createIndex('doc_set_name', { config: lancedb.Index.bitmap(), replace: true });
    this.ftsReady = true;
  }

  /**
   * One engine write under the write lock, both bounded: the lock wait by `lockMs`, the call by
   * `ms`. Past a deadline the caller gets DEPENDENCY_UNAVAILABLE at once, but the lock stays held
   * until the engine call has really ended, so writes never overlap and a wedged engine shows up
   * as writes failing fast (and as a failed write probe) instead of piling up. A caller whose
   * signal aborts stops waiting the same way.
   */
  private async write<T>(
    what: string,
    fn: (t: lancedb.Table) => Promise<T>,
    signal?: AbortSignal,
    ms = this.deadlines.writeMs,
  ): Promise<T> {
    const release = await this.writes
      .acquire(this.deadlines.lockMs, `embedded search write lock (${what})`, signal)
      .catch((err: unknown) => {
        throw this.timedOut(err, `waiting for the write lock (${what}), held for ${this.heldForMs()} ms`);
      });
    // Opened under the lock: a reopen (also under it) never swaps the handle under a writer.
    // The version before the write is read here, bounded like the open, so that `fn` starts in the
    // same tick as the deadline's clock: a write given the lock always runs its first synchronous
    // step (groupWrite takes its queued rows there), however short the deadline.
    let t: lancedb.Table;
    let before: number;
    try {
      t = await this.bounded(this.open(), this.deadlines.lockMs, 'open', signal);
      before = await this.bounded(t.version(), this.deadlines.lockMs, 'version', signal);
    } catch (err) {
      release();
      throw err;
    }
    this.useHandle(t);
    const started = Date.now();
    this.writeHeldSince = started;
    // The floor moves only when a version was committed (a failed write may commit none); the
    // check runs inside the bounded call, so a wedged engine cannot hold the lock unseen.
    const call = (async () => {
      const result = await fn(t);
      if ((await t.version()) !== before) this.versionFloor = started;
      return result;
    })();
    let overdue = false;
    void call.then(noop, noop).finally(() => {
      if (overdue) {
        this.overdueWrites--;
        this.log.warn(`${what} ended ${Date.now() - started - ms} ms after its ${ms} ms deadline`);
      }
      this.releaseHandle(t);
      this.releaseWrite(release);
    });
    try {
      return await withDeadline(call, ms, `embedded search ${what}`, signal);
    } catch (err) {
      if (err instanceof DeadlineExceededError) {
        overdue = true;
        this.overdueWrites++;
      }
      throw this.timedOut(err, what);
    }
  }

  private releaseWrite(release: () => void): void {
    this.writeHeldSince = undefined;
    release();
  }

  private heldForMs(): number {
    return this.writeHeldSince === undefined ? 0 : Date.now() - this.writeHeldSince;
  }

  /**
   * One engine read bounded by `readMs`. Reads run concurrently on the engine's snapshots; when
   * several are already running past their deadline the engine is not answering, and new reads
   * fail at once instead of adding to the pile.
   */
  private async read<T>(
    what: string,
    fn: (t: lancedb.Table) => Promise<T>,
    ms = this.deadlines.readMs,
  ): Promise<T> {
    if (this.overdueReads >= MAX_OVERDUE_READS) {
      this.log.warn(`${what} refused: ${this.overdueReads} reads are running past their deadline`);
      throw searchTimedOut();
    }
    const t = await this.bounded(this.open(), ms, 'open');
    const token = {};
    this.readFloors.set(token, this.versionFloor);
    this.useHandle(t);
    const call = fn(t);
    void call.then(noop, noop).finally(() => {
      this.readFloors.delete(token);
      this.releaseHandle(t);
    });
    const started = Date.now();
    try {
      const result = await withDeadline(call, ms, `embedded search ${what}`);
      this.noteSlowRead(what, started);
      return result;
    } catch (err) {
      if (err instanceof DeadlineExceededError) {
        this.overdueReads++;
        void call.then(noop, noop).finally(() => this.overdueReads--);
      }
      throw this.timedOut(err, what);
    }
  }

  /**
   * A read slower than SLOW_READ_MS is logged with what the engine was doing meanwhile, so a slow
   * answer can be told apart as maintenance, a fresh handle's cold caches or plain CPU contention.
   */
  private noteSlowRead(what: string, started: number): void {
    const ms = Date.now() - started;
    if (ms < (this.o.slowReadMs ?? SLOW_READ_MS)) return;
    const last = this.lastMaintenanceEnd
      ? `last ended ${started - this.lastMaintenanceEnd} ms before`
      : 'none run yet';
    const lock = this.writeHeldSince === undefined ? 'free' : `held ${this.heldForMs()} ms`;
    this.log.warn(
      `embedded search ${what} took ${ms} ms (maintenance ${this.maintenance ? 'running' : 'idle'}, ${last}, ` +
        `${this.writesSinceMaintenance} writes (${this.rowsSinceMaintenance} rows) since, ${this.runsSinceOpen} runs since the handle opened, write lock ${lock})`,
    );
  }

  private async bounded<T>(p: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
    try {
      return await withDeadline(p, ms, `embedded search ${what}`, signal);
    } catch (err) {
      throw this.timedOut(err, what);
    }
  }

  /** A missed deadline becomes DEPENDENCY_UNAVAILABLE (logged with what it was); the rest as is. */
  private timedOut(err: unknown, what: string): unknown {
    if (!(err instanceof DeadlineExceededError)) return err;
    this.log.warn(`embedded search engine did not answer: ${what} (${err.message})`);
    return searchTimedOut();
  }

  async upsert(chunks: ChunkRecord[], o: WriteOptions = {}): Promise<UpsertResult> {
    const { valid, failures } = partitionChunks(chunks, this.o.space.dimensions, (c) =>
      chunkId(c.documentId, c.chunkIndex, c.generation),
    );
    if (valid.length) {
      await this.groupWrite(valid.map(toRow), o.signal);
      this.scheduleOptimize(valid.length);
    }
    if (failures.length) throw new PartialIndexingError(valid.length, failures);
    return { indexed: valid.length };
  }

  /**
   * Group commit (issue 17): rows wait in a queue, and whoever gets the write lock writes every
   * queued row in one merge. Many documents indexed at once (a library of small files) then cost
   * one engine write (one table version, one fragment) per lock turn instead of one each; a caller
   * whose rows an earlier holder wrote gets that write's outcome. A caller cancelled while queued
   * leaves the queue; rows already taken are written, and a later delete (under the same lock)
   * comes after them. The holder takes the queue as its engine call starts (write), so rows whose
   * caller's deadline passes during that call are still written, as the engine call goes on.
   */
  private async groupWrite(rows: Row[], signal?: AbortSignal): Promise<void> {
    const entry: QueuedRows = { rows };
    this.upsertQueue.push(entry);
    try {
      await this.write(
        `upsert of ${rows.length} chunks`,
        async (t) => {
          if (entry.written) return;
          const taken = this.upsertQueue.splice(0);
          // One merge may not name a row twice: the last write of an id wins, as in separate calls.
          const byId = new Map<string, Row>();
          for (const e of taken) for (const r of e.rows) byId.set(r.id, r);
          const merged = [...byId.values()];
          const written = (async () => {
            for (let i = 0; i < merged.length; i += WRITE_BATCH)
              await this.insertOrReplace(t, merged.slice(i, i + WRITE_BATCH));
            if (!this.probeRow) {
              await t.add([this.probeRecord()]);
              this.probeRow = true;
            }
            if (!this.ftsReady) await this.createIndices(t);
          })();
          written.catch(noop);
          for (const e of taken) e.written = written;
          await written;
        },
        signal,
      );
      await entry.written;
    } finally {
      const at = this.upsertQueue.indexOf(entry);
      if (at >= 0) this.upsertQueue.splice(at, 1);
    }
  }

  /**
   * Writes rows under the write lock, replacing rows with the same id (a retried or resumed write).
   * The engine's merge reads every column of every row of the table to find matches (vectors
   * included), and even a filtered read of the id column costs about 15 ms of CPU per call however
   * small the table (the engine plans and runs a scan on its thread pool): a library of small
   * documents paid that per write (issue 17). Rows whose id this instance knows not to be stored
   * (storedIds) are appended; only the others go through the merge.
   */
  private async insertOrReplace(t: lancedb.Table, rows: Row[]): Promise<void> {
    const stored = await this.storedIdHashes(t);
    const hashes = rows.map((r) => idHash(r.id));
    const fresh = rows.filter((_, i) => !stored.has(hashes[i]));
    const replacing = rows.filter((_, i) => stored.has(hashes[i]));
    try {
      if (fresh.length) await t.add(fresh);
      if (replacing.length)
        await t.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(replacing);
    } finally {
      // Also after a failed call: its rows may be stored all the same, and a stored id the set
      // lacks would be stored twice by the next write.
      for (const h of hashes) stored.add(h);
    }
  }

  /**
   * Hashes of every id stored in the table, read once (under the write lock) and kept up to date
   * by this instance's writes: it is the table's only writer (one instance per data directory and
   * process; the embedded database's lock keeps a second process out). The set may hold more than
   * the table (deleted rows, a rare hash collision): such a row goes through the merge, which is
   * always correct; it never lacks a stored id, which would store a row twice.
   */
  private async storedIdHashes(t: lancedb.Table): Promise<Set<number>> {
    if (this.storedIds) return this.storedIds;
    const hashes = new Set<number>();
    for await (const batch of t.query().select(['id'])) {
      const ids = batch.getChild('id');
      for (let i = 0; i < batch.numRows; i++) hashes.add(idHash(String(ids?.get(i))));
    }
    this.storedIds = hashes;
    return hashes;
  }

  deleteByDocument(accountId: number, documentId: string, o?: WriteOptions): Promise<number> {
    return this.deleteWhere(accountId, `document_id = ${sqlString(documentId)}`, o);
  }

  async deleteChunks(
    accountId: number,
    documentId: string,
    generation: number,
    chunkCount: number,
    o?: WriteOptions,
  ): Promise<number> {
    return deleteGenerationInBatches(documentId, generation, chunkCount, (ids) =>
      this.deleteWhere(
        accountId,
        `document_id = ${sqlString(documentId)} AND id IN (${ids.map(sqlString).join(', ')})`,
        o,
      ),
    );
  }

  deleteByDocSet(accountId: number, docSetName: string, o?: WriteOptions): Promise<number> {
    return this.deleteWhere(accountId, `doc_set_name = ${sqlString(docSetName)}`, o);
  }

  deleteByAccount(accountId: number, o?: WriteOptions): Promise<number> {
    return this.deleteWhere(accountId, undefined, o);
  }

  private async deleteWhere(accountId: number, extra?: string, o: WriteOptions = {}): Promise<number> {
    const predicate =
      `account_id = ${sqlString(storedAccountId(accountId))}` + (extra ? ` AND ${extra}` : '');
    const n = await this.write(
      'delete',
      async (t) => {
        const count = await t.countRows(predicate);
        if (count > 0) await t.delete(predicate);
        return count;
      },
      o.signal,
    );
    if (n > 0) this.scheduleOptimize();
    return n;
  }

  search(q: SearchQuery): Promise<SearchHit[]> {
    return this.read('search', (t) => this.runSearch(t, q));
  }

  private runSearch(t: lancedb.Table, q: SearchQuery): Promise<SearchHit[]> {
    return runSearch(
      withFusionMethod(q, this.o.fusion),
      {
        bm25: (query, size) => this.bm25(t, query, size),
        vector: (query, size) => this.knn(t, query, size),
        documents: (query, size) => this.documents(t, query, size),
      },
      this.o.space.dimensions,
    );
  }

  async chunksById(q: ChunksByIdQuery): Promise<StoredChunk[]> {
    checkChunksById(q);
    if (q.ids.length === 0 || q.docSetNames.length === 0) return [];
    return this.read('chunksById', (t) => this.chunksOf(t, q));
  }

  async chunksAndTerms(q: ChunksAndTermsQuery): Promise<ChunksAndTerms> {
    checkChunksAndTerms(q);
    if (q.docSetNames.length === 0 || (q.ids.length === 0 && q.terms.length === 0))
      return { chunks: [], termsFound: q.terms.map(() => false) };
    return this.read('chunksAndTerms', async (t) => {
      const [chunks, termsFound] = await Promise.all([
        q.ids.length ? this.chunksOf(t, q) : Promise.resolve([]),
        Promise.all(q.terms.map((text) => this.runSearch(t, termProbe(q, text)).then((r) => r.length > 0))),
      ]);
      return { chunks, termsFound };
    });
  }

  private async chunksOf(t: lancedb.Table, q: ChunksByIdQuery): Promise<StoredChunk[]> {
    const scope = this.scope({ storedAccountId: storedAccountId(q.accountId), docSetNames: q.docSetNames });
    const predicate = `${scope} AND id IN (${q.ids.map(sqlString).join(', ')})`;
    const rows = (await t.query().where(predicate).select(COLUMNS).limit(q.ids.length).toArray()) as Row[];
    return rows.map(toChunk);
  }

  private scope(q: Pick<LegQuery, 'storedAccountId' | 'docSetNames' | 'documentIds'>): string {
    return (
      `account_id = ${sqlString(q.storedAccountId)} AND ` +
      `doc_set_name IN (${q.docSetNames.map(sqlString).join(', ')})` +
      (q.documentIds ? ` AND document_id IN (${q.documentIds.map(sqlString).join(', ')})` : '')
    );
  }

  /** BM25 over the text and the document context fields, with their boosts (as Elasticsearch's). */
  private async bm25(t: lancedb.Table, q: LegQuery, size: number): Promise<LegHit[]> {
    if (!this.ftsReady) return []; // nothing was ever written
    const b = { ...DEFAULT_FIELD_BOOSTS, ...(q.fieldBoosts ?? {}) };
    const text = contextQueryText(q.text);
    const boosts: Record<FtsColumn, number> = {
      text: 1,
      text_plain: PLAIN_TEXT_BOOST,
      section: b.section,
      doc_title: b.documentTitle,
      doc_terms: b.documentTerms,
    };
    // A boolean of per-column matches sums the columns' scores (as Elasticsearch's most_fields);
    // the engine's multi-match keeps only the best column's.
    const query = new lancedb.BooleanQuery(
      FTS_COLUMNS.filter((c) => boosts[c] > 0).map((c) => [
        lancedb.Occur.Should,
        new lancedb.MatchQuery(text, c, { boost: boosts[c] }),
      ]),
    );
    const rows = (await t
      .query()
      .fullTextSearch(query)
      .where(this.scope(q))
      .select([...COLUMNS, '_score'])
      .limit(size)
      .toArray()) as Array<Row & { _score: number }>;
    return rows.map((r) => ({ chunk: toChunk(r), score: r._score }));
  }

  /** Documents ranked by their context fields; chunk 0 stands for its document (one row each). */
  private async documents(t: lancedb.Table, q: LegQuery, size: number): Promise<DocumentHit[]> {
    if (!this.ftsReady) return [];
    const rows = (await t
      .query()
      .fullTextSearch(
        new lancedb.BooleanQuery(
          (['doc_title', 'doc_terms'] as const).map((c) => [
            lancedb.Occur.Should,
            new lancedb.MatchQuery(contextQueryText(q.text), c),
          ]),
        ),
      )
      .where(`${this.scope(q)} AND chunk_index = 0`)
      .select(['document_id', '_score'])
      .limit(size)
      .toArray()) as Array<{ document_id: string; _score: number }>;
    return rows.map((r) => ({ documentId: r.document_id, score: r._score }));
  }

  private async knn(t: lancedb.Table, q: LegQuery & { vector: number[] }, size: number): Promise<LegHit[]> {
    const rows = (await t
      .query()
      .nearestTo(q.vector)
      .distanceType('cosine')
      .where(this.scope(q))
      .select([...COLUMNS, '_distance'])
      .limit(size)
      .toArray()) as Array<Row & { _distance: number }>;
    const out: LegHit[] = [];
    for (const r of rows) {
      const similarity = 1 - r._distance;
      if (similarity >= q.minimumSimilarityScore) out.push({ chunk: toChunk(r), score: similarity });
    }
    return out;
  }

  /** The probe row, as stored (its account is no account id, so it is written as a row). */
  private probeRecord(): Row {
    const vector = new Array<number>(this.o.space.dimensions).fill(0);
    vector[0] = 1;
    return {
      id: chunkId(PROBE.accountId, 0),
      account_id: PROBE.accountId,
      doc_set_name: PROBE.docSetName,
      document_id: PROBE.accountId,
      file_name: PROBE.accountId,
      page_number: '1',
      source_type: 'S3',
      source_id: PROBE.accountId,
      chunk_index: 0,
      text: PROBE.text,
      text_plain: PROBE.text,
      doc_title: '',
      doc_terms: '',
      section: '',
      vector,
    };
  }

  async stats(accountId?: number): Promise<SearchIndexStats> {
    const stored = accountId === undefined ? undefined : storedAccountId(accountId);
    const counted = await this.read('count', (t) =>
      t.countRows(stored ? `account_id = ${sqlString(stored)}` : undefined),
    );
    const chunks = stored || !this.probeRow ? counted : counted - 1;
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
   * Merges small write fragments and folds new rows into the indices once writes go idle, and
   * also every MAINTENANCE_EVERY_WRITES writes (more on a large table) while they never do
   * (issue 17): each write adds a fragment, and a write's id lookup (and every search) visits
   * every fragment, so a library of small documents indexed without a pause made each write
   * slower than the one before it.
   */
  private scheduleOptimize(rows = 0): void {
    if (this.closed) return;
    clearTimeout(this.optimizeTimer);
    this.rowsSinceMaintenance += rows;
    const byWrites = ++this.writesSinceMaintenance >= this.maintenanceEvery;
    // paced as settle is (at most about a fifth of the time in maintenance): on a fast writer the
    // rule would otherwise keep the write lock busy with runs
    const byRows =
      this.rowsSinceMaintenance >= Math.max(UNINDEXED_ROWS_MIN, UNINDEXED_SHARE * this.rowsAtMaintenance) &&
      Date.now() >= this.lastMaintenanceEnd + SETTLE_DUTY_FACTOR * this.lastMaintenanceMs;
    if ((byWrites || byRows) && !this.maintenance) {
      this.optimizeTimer = undefined;
      void this.runMaintenance(byWrites ? 'writes' : 'rows');
      return;
    }
    this.optimizeTimer = setTimeout(() => {
      this.optimizeTimer = undefined;
      void this.runMaintenance('idle');
    }, this.o.optimizeDelayMs ?? 2000);
    this.optimizeTimer.unref();
  }

  private runMaintenance(trigger: MaintenanceTrigger): Promise<void> {
    this.writesSinceMaintenance = 0;
    this.rowsSinceMaintenance = 0;
    this.maintenance = this.optimize(trigger)
      .catch((err: Error) => this.log.warn(`index maintenance failed: ${err.message}`))
      .finally(() => (this.maintenance = undefined));
    return this.maintenance;
  }

  /**
   * Runs the pending index maintenance now instead of after the idle delay. Rows not yet folded
   * into the full-text indices are still found, but the engine's flat search over them scores
   * them apart from the indexed rows and several times slower: a dev-corpus answer chunk ranked
   * 60th instead of 5th, and once fell out of the first 100, until maintenance had run.
   */
  async settle(): Promise<void> {
    if (this.closed) return;
    if (this.maintenance) await this.maintenance;
    // Many runs finishing one after another must not keep the write lock busy with maintenance:
    // settling starts one no sooner than SETTLE_DUTY_FACTOR times the last one's duration after
    // it ended (callers finishing meanwhile share the wait and the run).
    const wait = this.lastMaintenanceEnd + SETTLE_DUTY_FACTOR * this.lastMaintenanceMs - Date.now();
    if (wait > 0) await (this.settleWait ??= sleep(wait).finally(() => (this.settleWait = undefined)));
    if (this.maintenance) await this.maintenance;
    if (this.closed || (this.writesSinceMaintenance === 0 && this.optimizeTimer === undefined)) return;
    clearTimeout(this.optimizeTimer);
    this.optimizeTimer = undefined;
    await this.runMaintenance('settle');
  }

  /**
   * Compacts files, updates indices with unindexed rows, drops versions older than KEEP_VERSIONS_MS.
   * Holds the write lock while it runs (seconds at 20,000 chunks), bounded by `maintenanceMs`.
   */
  async optimize(trigger: MaintenanceTrigger = 'call'): Promise<void> {
    await this.write(
      'index maintenance',
      async (t) => {
        const started = Date.now();
        await t.optimize({
          cleanupOlderThan: cleanupCutoff(
            started,
            this.o.keepVersionsMs ?? KEEP_VERSIONS_MS,
            this.readFloors.values(),
          ),
        });
        this.recordMaintenance(trigger, started);
        // Compaction rewrites the table's small fragments, the compacted ones included, so its
        // cost grows with the table: the larger the table, the more writes between two runs.
        const rows = await t.countRows();
        this.rowsAtMaintenance = rows;
        this.maintenanceEvery = Math.max(
          MAINTENANCE_EVERY_WRITES,
          Math.round(rows / ROWS_PER_MAINTENANCE_WRITE),
        );
        // Deleted rows' hashes only cost a merge, but re-indexing replaces every id (the generation
        // is part of it): read the set again once it holds twice the rows stored.
        if ((this.storedIds?.size ?? 0) > 2 * rows + 1000) this.storedIds = undefined;
        if (++this.runsSinceOpen >= (this.o.reopenEveryMaintenanceRuns ?? REOPEN_EVERY_MAINTENANCE_RUNS))
          await this.reopen(t);
      },
      undefined,
      this.deadlines.maintenanceMs,
    );
    // Compaction frees the engine's largest buffers; without this glibc keeps them in its arenas and
    // the process grows through a long indexing run (releaseFreedNativeMemory). Outside the lock.
    if (this.o.releaseFreedMemory ?? true) {
      const t0 = Date.now();
      if (releaseFreedNativeMemory() !== undefined)
        docqaMetrics.nativeMemoryReleaseDuration.observe((Date.now() - t0) / 1000);
    }
  }

  private recordMaintenance(trigger: MaintenanceTrigger, started: number): void {
    this.lastMaintenanceEnd = Date.now();
    this.lastMaintenanceMs = this.lastMaintenanceEnd - started;
    this.maintenanceRuns++;
    this.maintenanceMs += this.lastMaintenanceMs;
    docqaMetrics.searchMaintenanceDuration.observe({ trigger }, this.lastMaintenanceMs / 1000);
  }

  writesBlocked(): string | undefined {
    if (this.overdueWrites > 0) return `${this.overdueWrites} write(s) running past their deadline`;
    if (this.heldForMs() > this.deadlines.lockMs)
      return `the write lock has been held for ${this.heldForMs()} ms`;
    return undefined;
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
    if (this.overdueReads > 0) {
      // an earlier read has not answered yet: probing again would only add to the pile
      problems.push(`${this.overdueReads} read(s) running past their deadline`);
    } else {
      try {
        const probe = this.probeRecord();
        await this.read<unknown>(
          'health probe',
          (t) =>
            this.probeRow
              ? runLegs(
                  {
                    storedAccountId: PROBE.accountId,
                    docSetNames: [PROBE.docSetName],
                    text: PROBE.text,
                    vector: probe.vector,
                    limit: 1,
                    minimumSimilarityScore: -1,
                  },
                  { bm25: (q, size) => this.bm25(t, q, size), vector: (q, size) => this.knn(t, q, size) },
                  this.o.space.dimensions,
                )
              : t.countRows(), // nothing was ever written: there is nothing to decode
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
    if (this.closed) return;
    const deadline = Date.now() + (o.timeoutMs ?? 10_000);
    const left = () => Math.max(1, deadline - Date.now());
    const hadPending = this.optimizeTimer !== undefined;
    clearTimeout(this.optimizeTimer);
    this.optimizeTimer = undefined;
    // Maintenance a write has just started may still be waiting for the lock: it ends first
    // (bounded), instead of finding the table closed under it, failing, and leaving the rows
    // it was to fold into the full-text indices for the next start.
    if (this.maintenance && this.overdueWrites === 0)
      await withDeadline(this.maintenance, left(), 'embedded search index maintenance at close').catch(noop);
    if (hadPending && this.table && this.overdueWrites === 0) {
      await this.write(
        'index maintenance at close',
        async (t) => {
          const started = Date.now();
          await t.optimize();
          this.recordMaintenance('close', started);
        },
        undefined,
        left(),
      ).catch((err: Error) => this.log.warn(`index maintenance at close skipped: ${err.message}`));
    }
    this.closed = true;
    let release: () => void;
    try {
      release = await this.writes.acquire(left(), 'embedded search write lock (close)');
    } catch {
      throw new Error(
        `embedded search index: a write has been running for ${this.heldForMs()} ms and did not end`,
      );
    }
    try {
      const t = await this.table?.catch(() => undefined);
      t?.close();
      const db = await this.db?.catch(() => undefined);
      db?.close();
      for (const [old, oldDb] of this.retired) closeHandle(old, oldDb);
      this.retired.clear();
    } finally {
      release();
    }
  }
}
