import * as lancedb from '@lancedb/lancedb';
import { Logger } from '@nestjs/common';
import type { EmbeddingSpace } from '@docqa/common';
import { EMBEDDED_LAYOUT_VERSION, embeddedTableName } from './index-version';
import { FTS_COLUMN_OPTIONS, FTS_COLUMNS, schema, upgradeRow } from './embedded-layout';
import { probeRowPredicate } from './embedded-query';

/**
 * Maintenance runs after which the connection, its caches and the table handle are opened afresh
 * (reopen). A long-lived handle grows slower as versions go by, whatever the table's size: a
 * table dropped and created again every 10,000 rows took 22, 31 and 39 s of maintenance for its
 * 1st, 2nd and 3rd 10,000 rows on one connection and 21, 20 and 22 s when each came with a new one;
 * a growing table written 2 rows at a time (40,000 rows) needed 0.79x the maintenance and
 * 0.82x the time, and its searches took 124 ms instead of 707 (docs/benchmarks/sharepoint.md).
 */
const REOPEN_EVERY_MAINTENANCE_RUNS = 10;

/** MiB of engine caches when the options name none (SEARCH_EMBEDDED_CACHE_MB's default). */
const DEFAULT_CACHE_MB = 256;

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

export interface EmbeddedTableOptions {
  /** Directory of the tables (DATA_DIR/search). */
  dir: string;
  space: EmbeddingSpace;
  /** MiB the engine's index and metadata caches may hold (default DEFAULT_CACHE_MB). */
  cacheMb?: number;
  /** Maintenance runs after which the engine is opened afresh (default REOPEN_EVERY_MAINTENANCE_RUNS). */
  reopenEveryMaintenanceRuns?: number;
}

/**
 * The embedded engine's table handle: the connection (with its bounded caches) and the table of
 * the current layout, opened once (copying older layouts in), opened afresh every few maintenance
 * runs, and counted per call, so that a handle replaced by a reopen closes when its last user ends.
 */
export class EmbeddedTable {
  readonly name: string;
  /** The full-text indices exist (created with the first write). */
  ftsReady = false;
  /** The health probe's row exists (written with the first write of a table). */
  probeRow = false;
  /** Maintenance runs since the engine was last opened (reopen). */
  runsSinceOpen = 0;
  /** Set by the index's close: nothing opens the table again. */
  closed = false;
  private readonly log = new Logger('EmbeddedSearchIndex');
  private db?: Promise<lancedb.Connection>;
  private table?: Promise<lancedb.Table>;
  /** The engine's caches, bounded by cacheMb (engineSession); a new one with each reopen. */
  private session: lancedb.Session;
  /** Reads and writes still running on each table handle (a replaced one closes when they end). */
  private readonly handleUsers = new Map<lancedb.Table, number>();
  /** Handles replaced by reopen and still in use, with their connections. */
  private readonly retired = new Map<lancedb.Table, lancedb.Connection>();

  constructor(private readonly o: EmbeddedTableOptions) {
    this.name = embeddedTableName(o.space);
    this.session = this.newSession();
  }

  /** The handle being opened or open, if any (tests look at it). */
  get current(): Promise<lancedb.Table> | undefined {
    return this.table;
  }

  /** Bytes the engine's caches hold now (by the engine's own accounting). */
  cacheBytes(): number {
    return Number(this.session.sizeBytes());
  }

  /** New engine caches within cacheMb; one per connection (open, reopen). */
  private newSession(): lancedb.Session {
    return engineSession(this.o.cacheMb ?? DEFAULT_CACHE_MB);
  }

  open(): Promise<lancedb.Table> {
    if (this.closed) return Promise.reject(new Error('embedded search index is closed'));
    this.table ??= (async () => {
      this.db ??= lancedb.connect(this.o.dir, { session: this.session });
      const db = await this.db;
      const t = await db.createEmptyTable(this.name, schema(this.o.space.dimensions), {
        existOk: true,
      });
      await this.copyOlderLayouts(db, t);
      const indices = await t.listIndices();
      this.ftsReady = FTS_COLUMNS.every((c) =>
        indices.some((i) => i.columns.includes(c) && i.indexType === 'FTS'),
      );
      this.probeRow = (await t.countRows(probeRowPredicate)) > 0;
      return t;
    })().catch((err: unknown) => {
      this.table = undefined;
      throw err;
    });
    return this.table;
  }

  /**
   * Counts a maintenance run on the open handle (under the write lock) and opens the engine afresh
   * every REOPEN_EVERY_MAINTENANCE_RUNS runs.
   */
  async afterMaintenance(t: lancedb.Table): Promise<void> {
    if (++this.runsSinceOpen >= (this.o.reopenEveryMaintenanceRuns ?? REOPEN_EVERY_MAINTENANCE_RUNS))
      await this.reopen(t);
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
      const table = await db.openTable(this.name);
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

  /** A read or write starts on `t`. */
  use(t: lancedb.Table): void {
    this.handleUsers.set(t, (this.handleUsers.get(t) ?? 0) + 1);
  }

  /** ... and has ended. */
  release(t: lancedb.Table): void {
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
      this.log.log(`copying chunks from ${old} to ${this.name}`);
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
  async createIndices(t: lancedb.Table): Promise<void> {
    for (const c of FTS_COLUMNS)
      await t.createIndex(c, { config: lancedb.Index.fts(FTS_COLUMN_OPTIONS[c]), replace: true });
    await t.createIndex('account_id', { config: lancedb.Index.bitmap(), replace: true });
    await t.createIndex('doc_set_name', { config: lancedb.Index.bitmap(), replace: true });
    this.ftsReady = true;
  }

  /** Closes the open handle, its connection and every replaced one (close, under the write lock). */
  async closeAll(): Promise<void> {
    const t = await this.table?.catch(() => undefined);
    t?.close();
    const db = await this.db?.catch(() => undefined);
    db?.close();
    for (const [old, oldDb] of this.retired) closeHandle(old, oldDb);
    this.retired.clear();
  }
}
