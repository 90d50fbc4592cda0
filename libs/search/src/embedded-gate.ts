import * as lancedb from '@lancedb/lancedb';
import { Logger } from '@nestjs/common';
import { DeadlineExceededError, DeadlineLock, withDeadline } from '@docqa/common';
import type { EmbeddedTable } from './embedded-table';
import { searchTimedOut } from './search.errors';
import type { SearchDeadlines } from './search.port';

/** Reads past their deadline that may still be running before new reads fail at once. */
const MAX_OVERDUE_READS = 4;

/** Reads slower than this are logged with the engine's state (noteSlowRead). */
const SLOW_READ_MS = 1000;

export const noop = () => undefined;

export interface EmbeddedGateOptions {
  deadlines: SearchDeadlines;
  /** Reads at least this slow are logged with the engine's state (default SLOW_READ_MS). */
  slowReadMs?: number;
  /** What the engine was doing since `started`, for the slow read line (maintenance, handle age). */
  engineState: (started: number) => string;
}

/**
 * The embedded engine's write gate and deadlines: every engine call goes through here. Writes (and
 * index maintenance) take turns on a lock that a holder keeps until its engine call has really
 * ended; every call is bounded by its deadline; calls running past it are counted, so that a wedged
 * engine shows as writes blocked (`writesBlocked`) and reads refused at once instead of a pile-up.
 * It also keeps the version floors of running reads, which maintenance must not clean up.
 */
export class EmbeddedGate {
  private readonly log = new Logger('EmbeddedSearchIndex');
  /** Writes and index maintenance take turns; a holder keeps it until its engine call has ended. */
  private readonly writes = new DeadlineLock();
  /** When the current holder got the write lock (undefined while it is free). */
  private writeHeldSince?: number;
  /** Engine writes (maintenance included) still running past their deadline. */
  overdueWrites = 0;
  /** Engine reads still running past their deadline. */
  overdueReads = 0;
  /**
   * When the last write that committed a table version started: the version any read starting now
   * reads (the latest, or one a running write is making) was created no earlier. 0 until this
   * instance has committed one. A write that commits nothing (one that failed) leaves it alone.
   */
  versionFloor = 0;
  /** The versionFloor of each read still running in the engine (cleanupCutoff). */
  private readonly floors = new Map<object, number>();

  constructor(
    private readonly table: EmbeddedTable,
    private readonly o: EmbeddedGateOptions,
  ) {}

  get deadlines(): SearchDeadlines {
    return this.o.deadlines;
  }

  /** Version floors of the reads still running in the engine (cleanupCutoff). */
  readFloors(): Iterable<number> {
    return this.floors.values();
  }

  /**
   * Why a write would not get its turn now, without calling the engine: a write running past its
   * deadline, or the write lock held longer than a writer may wait.
   */
  writesBlocked(): string | undefined {
    if (this.overdueWrites > 0) return `${this.overdueWrites} write(s) running past their deadline`;
    if (this.heldForMs() > this.o.deadlines.lockMs)
      return `the write lock has been held for ${this.heldForMs()} ms`;
    return undefined;
  }

  /**
   * One engine write under the write lock, both bounded: the lock wait by `lockMs`, the call by
   * `ms`. Past a deadline the caller gets DEPENDENCY_UNAVAILABLE at once, but the lock stays held
   * until the engine call has really ended, so writes never overlap and a wedged engine shows up
   * as writes failing fast (and as a failed write probe) instead of piling up. A caller whose
   * signal aborts stops waiting the same way.
   */
  async write<T>(
    what: string,
    fn: (t: lancedb.Table) => Promise<T>,
    signal?: AbortSignal,
    ms = this.o.deadlines.writeMs,
  ): Promise<T> {
    const { lockMs } = this.o.deadlines;
    const release = await this.writes
      .acquire(lockMs, `embedded search write lock (${what})`, signal)
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
      t = await this.bounded(this.table.open(), lockMs, 'open', signal);
      before = await this.bounded(t.version(), lockMs, 'version', signal);
    } catch (err) {
      release();
      throw err;
    }
    this.table.use(t);
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
      this.table.release(t);
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

  /**
   * The write lock for closing the table, within `ms`; rejects, naming how long the current holder
   * has held it, when it is not free by then.
   */
  async acquireForClose(ms: number): Promise<() => void> {
    try {
      return await this.writes.acquire(ms, 'embedded search write lock (close)');
    } catch {
      throw new Error(
        `embedded search index: a write has been running for ${this.heldForMs()} ms and did not end`,
      );
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
  async read<T>(
    what: string,
    fn: (t: lancedb.Table) => Promise<T>,
    ms = this.o.deadlines.readMs,
  ): Promise<T> {
    if (this.overdueReads >= MAX_OVERDUE_READS) {
      this.log.warn(`${what} refused: ${this.overdueReads} reads are running past their deadline`);
      throw searchTimedOut();
    }
    const t = await this.bounded(this.table.open(), ms, 'open');
    const token = {};
    this.floors.set(token, this.versionFloor);
    this.table.use(t);
    const call = fn(t);
    void call.then(noop, noop).finally(() => {
      this.floors.delete(token);
      this.table.release(t);
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
    const lock = this.writeHeldSince === undefined ? 'free' : `held ${this.heldForMs()} ms`;
    this.log.warn(
      `embedded search ${what} took ${ms} ms (${this.o.engineState(started)}, write lock ${lock})`,
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
}
