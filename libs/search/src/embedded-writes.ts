import * as lancedb from '@lancedb/lancedb';
import { type EmbeddedGate, noop } from './embedded-gate';
import { idHash, Row } from './embedded-layout';
import { deletePredicate, probeRecord } from './embedded-query';
import type { EmbeddedTable } from './embedded-table';

/** Rows per merge-insert call: bounds memory of one write. */
const WRITE_BATCH = 5000;

/** Rows of one upsert call waiting to be written; `written` once a lock holder took them. */
interface QueuedRows {
  rows: Row[];
  written?: Promise<void>;
}

/**
 * The embedded engine's write path: rows group-committed under the write gate (appended when their
 * id is known not to be stored, merged otherwise), and deletes. `afterWrite` tells index
 * maintenance how much was written.
 */
export class EmbeddedWrites {
  /** Rows waiting for the write lock (groupWrite). */
  private readonly upsertQueue: QueuedRows[] = [];
  /** Hashes of the stored ids (storedIdHashes), once read. */
  private storedIds?: Set<number>;

  constructor(
    private readonly table: EmbeddedTable,
    private readonly gate: EmbeddedGate,
    private readonly dimensions: number,
    private readonly afterWrite: (rows?: number) => void,
  ) {}

  /** Writes rows (insert or replace by id), visible to search when it resolves. */
  async upsert(rows: Row[], signal?: AbortSignal): Promise<void> {
    await this.groupWrite(rows, signal);
    this.afterWrite(rows.length);
  }

  /**
   * After index maintenance, with the table's rows: deleted rows' hashes only cost a merge, but
   * re-indexing replaces every id (the generation is part of it): the set is read again once it
   * holds twice the rows stored.
   */
  compacted(rows: number): void {
    if ((this.storedIds?.size ?? 0) > 2 * rows + 1000) this.storedIds = undefined;
  }

  /**
   * Group commit (issue 17): rows wait in a queue, and whoever gets the write lock writes every
   * queued row in one merge. Many documents indexed at once (a library of small files) then cost
   * one engine write (one table version, one fragment) per lock turn instead of one each; a caller
   * whose rows an earlier holder wrote gets that write's outcome. A caller cancelled while queued
   * leaves the queue; rows already taken are written, and a later delete (under the same lock)
   * comes after them. The holder takes the queue as its engine call starts (EmbeddedGate.write), so
   * rows whose caller's deadline passes during that call are still written, as the engine call goes on.
   */
  private async groupWrite(rows: Row[], signal?: AbortSignal): Promise<void> {
    const entry: QueuedRows = { rows };
    this.upsertQueue.push(entry);
    try {
      await this.gate.write(
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
            if (!this.table.probeRow) {
              await t.add([probeRecord(this.dimensions)]);
              this.table.probeRow = true;
            }
            if (!this.table.ftsReady) await this.table.createIndices(t);
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

  /** Deletes the account's rows (those `extra` narrows them to); resolves to the number deleted. */
  async deleteWhere(accountId: number, extra?: string, signal?: AbortSignal): Promise<number> {
    const predicate = deletePredicate(accountId, extra);
    const n = await this.gate.write(
      'delete',
      async (t) => {
        const count = await t.countRows(predicate);
        if (count > 0) await t.delete(predicate);
        return count;
      },
      signal,
    );
    if (n > 0) this.afterWrite();
    return n;
  }
}
