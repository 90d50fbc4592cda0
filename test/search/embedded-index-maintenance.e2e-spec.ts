import * as lancedb from '@lancedb/lancedb';
import * as path from 'node:path';
import { canReleaseFreedNativeMemory, docqaMetrics } from '@docqa/common';
import { EmbeddedSearchIndex, embeddedTableName } from '@docqa/search';
import { chunkRecord, eachTempDir, embedder, space } from './embedded-index.fixture';

/**
 * Embedded-engine specifics, maintenance: when it runs, what it folds in and drops, and the memory and
 * caches it keeps bounded.
 */

describe('EmbeddedSearchIndex', () => {
  let dir: string;
  eachTempDir((created) => (dir = created));

  it('brings the table up to date while writes never go idle: write fragments do not pile up (issue 17)', async () => {
    // maintenance after idle time only would never run in this test
    const index = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 600_000 });
    const writes = 260;
    try {
      for (let i = 0; i < writes; i++) {
        await index.upsert([chunkRecord(4, 'busy', `d${i}`, 0, `back to back document ${i}`)]);
      }
      const fragmentsNow = async () => {
        const db = await lancedb.connect(dir);
        const t = await db.openTable(embeddedTableName(space));
        try {
          return (await t.stats()).fragmentStats.numFragments;
        } finally {
          t.close();
          db.close();
        }
      };
      // the maintenance started by the 200th write runs beside the test; wait for it (bounded)
      let fragments = await fragmentsNow();
      for (let tries = 0; tries < 120 && fragments >= writes / 2; tries++) {
        await new Promise((r) => setTimeout(r, 500));
        fragments = await fragmentsNow();
      }
      // one fragment per write without maintenance (260, and the probe row's)
      expect(fragments).toBeLessThan(writes / 2);
      expect((await index.stats(4)).chunks).toBe(writes);
    } finally {
      await index.close();
    }
  });

  it('gives the memory the engine freed back to the system after each maintenance run, unless turned off (issue 17)', async () => {
    const released = async () =>
      (await docqaMetrics.nativeMemoryReleaseDuration.get()).values.find(
        (v) => v.metricName === 'docqa_native_memory_release_duration_seconds_count',
      )?.value ?? 0;
    for (const releaseFreedMemory of [true, false]) {
      const index = new EmbeddedSearchIndex({
        dir: path.join(dir, String(releaseFreedMemory)),
        space,
        optimizeDelayMs: 600_000,
        releaseFreedMemory,
      });
      try {
        await index.upsert([chunkRecord(4, 'trim', 'd', 0, 'a document whose write maintenance compacts')]);
        const before = await released();
        await index.optimize();
        await index.optimize();
        // every run gives memory back (glibc: this machine kind's libc), none when turned off
        expect(canReleaseFreedNativeMemory()).toBe(true);
        expect((await released()) - before).toBe(releaseFreedMemory ? 2 : 0);
        expect((await index.stats(4)).chunks).toBe(1);
      } finally {
        await index.close();
      }
    }
  });

  it('keeps its caches within SEARCH_EMBEDDED_CACHE_MB over many writes, maintenance and searches (issue 17)', async () => {
    // The engine's default caches (7 GiB) kept every replaced table version's files and index
    // parts: by its own accounting they held over 1 GiB after 1,000 one-chunk writes.
    const index = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 600_000, cacheMb: 16 });
    const bound = 16 * 2 ** 20;
    const sizes: number[] = [];
    try {
      for (let i = 0; i < 260; i++) {
        await index.upsert([
          chunkRecord(6, 'cached', `d${i}`, 0, `cached document number ${i} about sextants`),
        ]);
        sizes.push(index.cacheBytes());
        if (i % 50 === 49)
          await index.search({
            accountId: 6,
            docSetNames: ['cached'],
            text: 'sextants',
            vector: embedder.embed('sextants'),
            limit: 5,
            minimumSimilarityScore: 0,
          });
      }
      await index.settle();
      sizes.push(index.cacheBytes());
      expect(index.cacheBytes()).toBeGreaterThan(0); // the bounded caches are the ones in use
      // The engine admits an entry first and evicts for it in the background, so the caches pass
      // their bound for a moment after a write (up to 25 MB seen against 16 MiB, in about one
      // sample of ten; once 21.3 MB right after settle): they are bounded over the run, not at
      // every instant. Unbounded they reached 145 MB here.
      expect(Math.max(...sizes)).toBeLessThanOrEqual(2 * bound);
    } finally {
      await index.close();
    }
  });

  it('runs index maintenance once the rows written since the last run reach a tenth of the table (at least 500), writes never pausing', async () => {
    const index = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 600_000 });
    let n = 0;
    const rows = (count: number) =>
      Array.from({ length: count }, () => chunkRecord(7, 'rows', `r${n}`, 0, `row ${n++} about sextants`));
    const maintenanceRuns = jest.spyOn(index['maintenance'], 'optimize');
    // the run a write starts is awaited by settle (nothing else is pending after it)
    const ran = async () => {
      await index.settle();
      return maintenanceRuns.mock.calls.length;
    };
    try {
      for (let i = 0; i < 4; i++) await index.upsert(rows(120)); // 480 rows: under the floor of 500
      expect(maintenanceRuns).not.toHaveBeenCalled();
      await index.upsert(rows(20)); // 500
      expect(maintenanceRuns).toHaveBeenCalledWith('rows');
      expect(await ran()).toBe(1);
      await index.upsert(rows(5500)); // one write past the floor: a run, after which the table holds 6,000 rows
      expect(await ran()).toBe(2);
      for (let i = 0; i < 11; i++) await index.upsert(rows(50)); // 550, under a tenth of 6,000
      expect(maintenanceRuns).toHaveBeenCalledTimes(2);
      await index.upsert(rows(60)); // 610
      expect(await ran()).toBe(3);
      expect(maintenanceRuns.mock.calls.map((c) => c[0])).toEqual(['rows', 'rows', 'rows']);
      expect((await index.stats(7)).chunks).toBe(6610);
    } finally {
      maintenanceRuns.mockRestore();
      await index.close();
    }
  });

  it('settle folds the rows written so far into the full-text indices at once, not after the idle delay', async () => {
    const index = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 600_000 });
    const chunk = (i: number) =>
      chunkRecord(5, 'settle', `s${i}`, 0, `settled document ${i} about lighthouses`);
    const unindexedTextRows = async () => {
      const db = await lancedb.connect(dir);
      const t = await db.openTable(embeddedTableName(space));
      try {
        const name = (await t.listIndices()).find(
          (i) => i.columns.includes('text') && i.indexType === 'FTS',
        )!.name;
        return (await t.indexStats(name))!.numUnindexedRows;
      } finally {
        t.close();
        db.close();
      }
    };
    try {
      const maintenanceRuns = jest.spyOn(index['maintenance'], 'optimize');
      await index.upsert([chunk(0)]); // the first write creates the indices
      for (let i = 1; i <= 5; i++) await index.upsert([chunk(i)]);
      expect(await unindexedTextRows()).toBe(5);
      // runs finishing together share one maintenance run
      await Promise.all([index.settle(), index.settle(), index.settle()]);
      expect(await unindexedTextRows()).toBe(0);
      expect(maintenanceRuns).toHaveBeenCalledTimes(1);
      await index.settle(); // nothing written since: nothing to do
      expect(maintenanceRuns).toHaveBeenCalledTimes(1);
      await index.upsert([chunk(6)]);
      await index.settle(); // paced after the last run, but run
      expect(await unindexedTextRows()).toBe(0);
      expect(maintenanceRuns).toHaveBeenCalledTimes(2);
      const hits = await index.search({
        accountId: 5,
        docSetNames: ['settle'],
        text: 'lighthouses',
        limit: 10,
        minimumSimilarityScore: -1,
        mode: 'bm25',
      });
      expect(hits).toHaveLength(7);
    } finally {
      await index.close();
    }
  });
});
