import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { docqaMetrics, releaseFreedNativeMemory, withDeadline } from '@docqa/common';
import { type EmbeddedGate, noop } from './embedded-gate';
import type { EmbeddedTable } from './embedded-table';

/** What started an index maintenance run (the label of docqa_search_maintenance_duration_seconds). */
export type MaintenanceTrigger = 'idle' | 'writes' | 'rows' | 'settle' | 'close' | 'call';

/** Write calls after which index maintenance runs even if writes never go idle (afterWrite). */
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
/** settle() keeps index maintenance to at most about 1 / (1 + this) of the time. */
const SETTLE_DUTY_FACTOR = 4;

/**
 * Versions created before the returned time may be cleaned up: older than `keepMs`, and older than
 * the version any running read may be reading. `readFloors` holds, per read still running in the
 * engine, a time no later than the creation of the version it reads (EmbeddedGate.read).
 * A second of margin covers the clock's granularity; never earlier than KEEP_VERSIONS_MAX_MS ago.
 */
export function cleanupCutoff(now: number, keepMs: number, readFloors: Iterable<number>): Date {
  let cutoff = now - keepMs;
  for (const floor of readFloors) cutoff = Math.min(cutoff, floor - 1000);
  return new Date(Math.max(cutoff, now - KEEP_VERSIONS_MAX_MS));
}

export interface EmbeddedMaintenanceOptions {
  /** Idle time after the last write before indices are brought up to date (default 2 s). */
  optimizeDelayMs?: number;
  /** Age below which maintenance keeps a table version (default KEEP_VERSIONS_MS). */
  keepVersionsMs?: number;
  /** Give memory the engine freed back to the system after each maintenance run (default true). */
  releaseFreedMemory?: boolean;
  /** After each run, under the write lock, with the table's row count (the writes' id cache). */
  onCompacted: (rows: number) => void;
}

/**
 * Index maintenance of the embedded engine: when it runs (writes gone idle, many writes or rows
 * since the last run, settle, close) and the run itself (compaction, index update, cleanup of old
 * versions), under the write gate and paced so that it never keeps the write lock busy.
 */
export class EmbeddedMaintenance {
  private readonly log = new Logger('EmbeddedSearchIndex');
  private optimizeTimer?: NodeJS.Timeout;
  /** Write calls since index maintenance last started, and the count that starts a run (afterWrite). */
  private writesSinceMaintenance = 0;
  private maintenanceEvery = MAINTENANCE_EVERY_WRITES;
  /** Rows written since index maintenance last started, and the table's rows at its last run. */
  private rowsSinceMaintenance = 0;
  private rowsAtMaintenance = 0;
  /** The maintenance run in progress, if any (settle waits for it). */
  private running?: Promise<void>;
  /** When the last maintenance ended and how long it took (settle's pacing). */
  private lastMaintenanceEnd = 0;
  private lastMaintenanceMs = 0;
  /** Maintenance runs finished and their engine time, since this instance opened (totals). */
  private runs = 0;
  private ms = 0;
  /** Settle calls waiting for their turn share one wait. */
  private settleWait?: Promise<void>;

  constructor(
    private readonly table: EmbeddedTable,
    private readonly gate: EmbeddedGate,
    private readonly o: EmbeddedMaintenanceOptions,
  ) {}

  /** Index maintenance runs finished since this instance opened and the engine time they took. */
  totals(): { runs: number; ms: number } {
    return { runs: this.runs, ms: this.ms };
  }

  /** The maintenance part of a slow read's log line (EmbeddedGate.noteSlowRead). */
  describe(started: number): string {
    const last = this.lastMaintenanceEnd
      ? `last ended ${started - this.lastMaintenanceEnd} ms before`
      : 'none run yet';
    return (
      `maintenance ${this.running ? 'running' : 'idle'}, ${last}, ` +
      `${this.writesSinceMaintenance} writes (${this.rowsSinceMaintenance} rows) since`
    );
  }

  /**
   * After a write of `rows` rows: merges small write fragments and folds new rows into the indices
   * once writes go idle, and also every MAINTENANCE_EVERY_WRITES writes (more on a large table)
   * while they never do (issue 17): each write adds a fragment, and a write's id lookup (and every
   * search) visits every fragment, so a library of small documents indexed without a pause made
   * each write slower than the one before it.
   */
  afterWrite(rows = 0): void {
    if (this.table.closed) return;
    clearTimeout(this.optimizeTimer);
    this.rowsSinceMaintenance += rows;
    const byWrites = ++this.writesSinceMaintenance >= this.maintenanceEvery;
    // paced as settle is (at most about a fifth of the time in maintenance): on a fast writer the
    // rule would otherwise keep the write lock busy with runs
    const byRows =
      this.rowsSinceMaintenance >= Math.max(UNINDEXED_ROWS_MIN, UNINDEXED_SHARE * this.rowsAtMaintenance) &&
      Date.now() >= this.lastMaintenanceEnd + SETTLE_DUTY_FACTOR * this.lastMaintenanceMs;
    if ((byWrites || byRows) && !this.running) {
      this.optimizeTimer = undefined;
      void this.run(byWrites ? 'writes' : 'rows');
      return;
    }
    this.optimizeTimer = setTimeout(() => {
      this.optimizeTimer = undefined;
      void this.run('idle');
    }, this.o.optimizeDelayMs ?? 2000);
    this.optimizeTimer.unref();
  }

  private run(trigger: MaintenanceTrigger): Promise<void> {
    this.writesSinceMaintenance = 0;
    this.rowsSinceMaintenance = 0;
    this.running = this.optimize(trigger)
      .catch((err: Error) => this.log.warn(`index maintenance failed: ${err.message}`))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Runs the pending index maintenance now instead of after the idle delay. Rows not yet folded
   * into the full-text indices are still found, but the engine's flat search over them scores
   * them apart from the indexed rows and several times slower: a dev-corpus answer chunk ranked
   * 60th instead of 5th, and once fell out of the first 100, until maintenance had run.
   */
  async settle(): Promise<void> {
    if (this.table.closed) return;
    if (this.running) await this.running;
    // Many runs finishing one after another must not keep the write lock busy with maintenance:
    // settling starts one no sooner than SETTLE_DUTY_FACTOR times the last one's duration after
    // it ended (callers finishing meanwhile share the wait and the run).
    const wait = this.lastMaintenanceEnd + SETTLE_DUTY_FACTOR * this.lastMaintenanceMs - Date.now();
    if (wait > 0) await (this.settleWait ??= sleep(wait).finally(() => (this.settleWait = undefined)));
    if (this.running) await this.running;
    if (this.table.closed || (this.writesSinceMaintenance === 0 && this.optimizeTimer === undefined)) return;
    clearTimeout(this.optimizeTimer);
    this.optimizeTimer = undefined;
    await this.run('settle');
  }

  /**
   * Compacts files, updates indices with unindexed rows, drops versions older than KEEP_VERSIONS_MS.
   * Holds the write lock while it runs (seconds at 20,000 chunks), bounded by `maintenanceMs`.
   */
  async optimize(trigger: MaintenanceTrigger = 'call'): Promise<void> {
    await this.gate.write(
      'index maintenance',
      async (t) => {
        const started = Date.now();
        await t.optimize({
          cleanupOlderThan: cleanupCutoff(
            started,
            this.o.keepVersionsMs ?? KEEP_VERSIONS_MS,
            this.gate.readFloors(),
          ),
        });
        this.record(trigger, started);
        // Compaction rewrites the table's small fragments, the compacted ones included, so its
        // cost grows with the table: the larger the table, the more writes between two runs.
        const rows = await t.countRows();
        this.rowsAtMaintenance = rows;
        this.maintenanceEvery = Math.max(
          MAINTENANCE_EVERY_WRITES,
          Math.round(rows / ROWS_PER_MAINTENANCE_WRITE),
        );
        this.o.onCompacted(rows);
        await this.table.afterMaintenance(t);
      },
      undefined,
      this.gate.deadlines.maintenanceMs,
    );
    // Compaction frees the engine's largest buffers; without this glibc keeps them in its arenas and
    // the process grows through a long indexing run (releaseFreedNativeMemory). Outside the lock.
    if (this.o.releaseFreedMemory ?? true) {
      const t0 = Date.now();
      if (releaseFreedNativeMemory() !== undefined)
        docqaMetrics.nativeMemoryReleaseDuration.observe((Date.now() - t0) / 1000);
    }
  }

  private record(trigger: MaintenanceTrigger, started: number): void {
    this.lastMaintenanceEnd = Date.now();
    this.lastMaintenanceMs = this.lastMaintenanceEnd - started;
    this.runs++;
    this.ms += this.lastMaintenanceMs;
    docqaMetrics.searchMaintenanceDuration.observe({ trigger }, this.lastMaintenanceMs / 1000);
  }

  /**
   * Close's part: stops the timers, lets a run a write has just started end (it may still be waiting
   * for the lock: it ends first instead of finding the table closed under it, failing, and leaving
   * the rows it was to fold into the full-text indices for the next start), and brings the indices
   * up to date if writes were pending. Within `left()` ms; never throws.
   */
  async beforeClose(left: () => number): Promise<void> {
    const hadPending = this.optimizeTimer !== undefined;
    clearTimeout(this.optimizeTimer);
    this.optimizeTimer = undefined;
    if (this.running && this.gate.overdueWrites === 0)
      await withDeadline(this.running, left(), 'embedded search index maintenance at close').catch(noop);
    if (hadPending && this.table.current && this.gate.overdueWrites === 0) {
      await this.gate
        .write(
          'index maintenance at close',
          async (t) => {
            const started = Date.now();
            await t.optimize();
            this.record('close', started);
          },
          undefined,
          left(),
        )
        .catch((err: Error) => this.log.warn(`index maintenance at close skipped: ${err.message}`));
    }
  }
}
