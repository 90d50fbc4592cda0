import * as lancedb from '@lancedb/lancedb';
import { Logger } from '@nestjs/common';
import { EmbeddedSearchIndex, embeddedTableName } from '@docqa/search';
import { chunkRecord, eachTempDir, embedder, space } from './embedded-index.fixture';

/**
 * Embedded-engine specifics, reads: slow reads logged, and searches answered whole while maintenance drops
 * table versions and opens the engine afresh.
 */

describe('EmbeddedSearchIndex', () => {
  let dir: string;
  eachTempDir((created) => (dir = created));

  it('logs a read slower than slowReadMs with what the engine was doing, and none below it', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const query = {
      accountId: 9,
      docSetNames: ['slow'],
      text: 'astrolabes',
      limit: 1,
      minimumSimilarityScore: 0,
      mode: 'bm25' as const,
    };
    const slowReads = () => warn.mock.calls.map((c) => String(c[0])).filter((m) => / took \d+ ms \(/.test(m));
    try {
      const quiet = new EmbeddedSearchIndex({ dir, space, slowReadMs: 60_000 });
      try {
        await quiet.upsert([chunkRecord(9, 'slow', 'd1', 0, 'a chunk about astrolabes')]);
        await quiet.search(query);
        expect(slowReads()).toEqual([]);
      } finally {
        await quiet.close();
      }
      // every read is "slow" at 0 ms: the line names the read and the engine's state
      const index = new EmbeddedSearchIndex({ dir, space, slowReadMs: 0 });
      try {
        const hits = await index.search(query);
        expect(hits).toHaveLength(1);
        expect(slowReads()).toEqual([
          expect.stringMatching(
            /^embedded search search took \d+ ms \(maintenance (idle|running), (none run yet|last ended \d+ ms before), \d+ writes \(\d+ rows\) since, \d+ runs since the handle opened, write lock (free|held \d+ ms)\)$/,
          ),
        ]);
      } finally {
        await index.close();
      }
    } finally {
      warn.mockRestore();
    }
  });

  it('maintenance drops old table versions but never one a running search reads (issue 17)', async () => {
    // every version is "old" at once: only the running searches' versions protect anything
    const index = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 600_000, keepVersionsMs: 0 });
    const versions = async () => {
      const db = await lancedb.connect(dir);
      const t = await db.openTable(embeddedTableName(space));
      try {
        return (await t.listVersions()).length;
      } finally {
        t.close();
        db.close();
      }
    };
    try {
      for (let i = 0; i < 30; i++)
        await index.upsert([
          chunkRecord(6, 'versions', `v${i}`, 0, `versioned document ${i} about harbours`),
        ]);
      const before = await versions();
      expect(before).toBeGreaterThan(30); // one per write, and the indices'
      await index.optimize();
      expect(await versions()).toBeLessThan(10);
      expect(index.maintenanceTotals().runs).toBe(1);

      // searches run throughout writes and maintenance runs that compact and drop what they replaced
      let stop = false;
      const searched: number[] = [];
      const searcher = async () => {
        while (!stop) {
          const hits = await index.search({
            accountId: 6,
            docSetNames: ['versions'],
            text: 'harbours',
            limit: 100,
            minimumSimilarityScore: -1,
            mode: 'bm25',
          });
          searched.push(hits.length);
        }
      };
      const searchers = [searcher(), searcher(), searcher()];
      try {
        for (let round = 0; round < 8; round++) {
          for (let i = 0; i < 10; i++) {
            const n = 30 + round * 10 + i;
            await index.upsert([
              chunkRecord(6, 'versions', `v${n}`, 0, `versioned document ${n} about harbours`),
            ]);
          }
          await index.optimize();
        }
      } finally {
        stop = true;
      }
      await Promise.all(searchers); // rejects if a search lost the files of its version
      expect(searched.length).toBeGreaterThan(20);
      // every search saw at least the first 30 documents, and the last the 110 written
      expect(Math.min(...searched)).toBeGreaterThanOrEqual(30);
      expect(searched[searched.length - 1]).toBe(100);
    } finally {
      await index.close();
    }
  });

  it('the version floor a search records moves only when a write commits a table version (issue 17)', async () => {
    const index = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 600_000 });
    // cleanupCutoff trusts it to be no later than the version a search starting now reads
    const floor = () => index['gate'].versionFloor;
    const pause = () => new Promise((r) => setTimeout(r, 20));
    try {
      await index.upsert([chunkRecord(7, 'floor', 'f1', 0, 'the first committed version')]);
      const first = floor();
      expect(first).toBeGreaterThan(0);
      await pause();
      // a delete that matches no row commits nothing: the latest version is still the upsert's
      expect(await index.deleteByDocument(7, 'no-such-document')).toBe(0);
      expect(floor()).toBe(first);
      await pause();
      await index.upsert([chunkRecord(7, 'floor', 'f2', 0, 'a second committed version')]);
      const second = floor();
      expect(second).toBeGreaterThan(first);
      await pause();
      expect(await index.deleteByDocument(7, 'f1')).toBe(1);
      expect(floor()).toBeGreaterThan(second);
    } finally {
      await index.close();
    }
  });

  it('opens the engine afresh every few maintenance runs; calls still running keep the old handle open until they end (issue 17)', async () => {
    const index = new EmbeddedSearchIndex({
      dir,
      space,
      optimizeDelayMs: 600_000,
      reopenEveryMaintenanceRuns: 2,
    });
    const handle = () => index['table'].current as Promise<lancedb.Table>;
    const nextTurn = () => new Promise((r) => setImmediate(r));
    const found = async (text: string) =>
      (
        await index.search({
          accountId: 7,
          docSetNames: ['reopen'],
          text,
          vector: embedder.embed(text),
          limit: 5,
          minimumSimilarityScore: 0,
        })
      ).map((h) => h.chunk.documentId);
    try {
      await index.upsert([chunkRecord(7, 'reopen', 'r1', 0, 'heliotrope lanterns at dusk')]);
      const first = await handle();
      // as a search still running on it would
      index['table'].use(first);
      await index.optimize();
      expect(await handle()).toBe(first);
      await index.optimize();
      const second = await handle();
      expect(second).not.toBe(first);
      expect(first.isOpen()).toBe(true);
      expect(await found('heliotrope lanterns')).toEqual(['r1']);
      index['table'].release(first);
      await nextTurn();
      expect(first.isOpen()).toBe(false);

      // writes after the swap land in the same table, beside the rows written before it
      await index.upsert([chunkRecord(7, 'reopen', 'r2', 0, 'heliotrope kites at dawn')]);
      expect((await found('heliotrope')).sort()).toEqual(['r1', 'r2']);
      // nothing uses the replaced handle: it closes at the swap
      await index.optimize();
      await index.optimize();
      expect(await handle()).not.toBe(second);
      await nextTurn();
      expect(second.isOpen()).toBe(false);
      expect((await found('heliotrope')).sort()).toEqual(['r1', 'r2']);
    } finally {
      await index.close();
    }
    expect((await handle()).isOpen()).toBe(false);
  });

  it('searches running while the engine is opened afresh all answer from the table (issue 17)', async () => {
    const index = new EmbeddedSearchIndex({
      dir,
      space,
      optimizeDelayMs: 600_000,
      reopenEveryMaintenanceRuns: 1,
    });
    const search = () =>
      index.search({
        accountId: 7,
        docSetNames: ['reopen'],
        text: 'quartz',
        vector: embedder.embed('quartz'),
        limit: 5,
        minimumSimilarityScore: 0,
      });
    try {
      for (let round = 0; round < 10; round++) {
        await index.upsert([chunkRecord(7, 'reopen', `q${round}`, 0, `quartz crystal number ${round}`)]);
        // every maintenance run swaps the handle while these run on it
        const [, ...answers] = await Promise.all([index.optimize(), search(), search(), search()]);
        for (const hits of answers) expect(hits.length).toBe(Math.min(round + 1, 5));
      }
      expect((await search()).length).toBe(5);
    } finally {
      await index.close();
    }
  });
});
