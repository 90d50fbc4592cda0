import * as lancedb from '@lancedb/lancedb';
import { Logger } from '@nestjs/common';
import { EmbeddedSearchIndex, embeddedTableName } from '@docqa/search';
import { chunkRecord, eachTempDir, embedder, space } from './embedded-index.fixture';

/**
 * Embedded-engine specifics, writes: the layout upgrade from an older table of the same embedding space, ids
 * across writes and instances, writes past their deadline, closing.
 */

describe('EmbeddedSearchIndex', () => {
  let dir: string;
  eachTempDir((created) => (dir = created));

  it('copies the chunks of an older layout table into the new one, then drops the old table', async () => {
    const oldName = embeddedTableName(space, 1);
    const db = await lancedb.connect(dir);
    const text = 'Layout one chunk about sextants and astrolabes';
    // the columns of layout 1: no document context fields; the account id stored as a string
    const old = await db.createTable(oldName, [
      {
        id: 'doc-1:0',
        account_id: '7',
        doc_set_name: 'ds',
        document_id: 'doc-1',
        file_name: 'old.pdf',
        page_number: '3',
        source_type: 'S3',
        source_id: 'bucket/old.pdf',
        chunk_index: 0,
        text,
        vector: embedder.embed(text),
      },
    ]);
    old.close();
    db.close();

    const index = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 100 });
    try {
      const hits = await index.search({
        accountId: 7,
        docSetNames: ['ds'],
        text: 'sextants astrolabes',
        vector: embedder.embed('sextants astrolabes'),
        limit: 5,
        minimumSimilarityScore: 0,
      });
      expect(hits.map((h) => h.chunk)).toEqual([
        expect.objectContaining({
          id: 'doc-1:0',
          accountId: 7,
          fileName: 'old.pdf',
          pageNumber: '3',
          text,
          section: '',
        }),
      ]);
      expect(hits[0]).toMatchObject({ bm25Rank: 1, vectorRank: 1 });
      expect((await index.stats()).indexName).toBe(embeddedTableName(space));
      const reopened = await lancedb.connect(dir);
      await expect(reopened.openTable(oldName)).rejects.toThrow();
      // layout 3's unstemmed copy of the text is filled from the old row's text
      const t = await reopened.openTable(embeddedTableName(space));
      expect(await t.query().where(`id = 'doc-1:0'`).select(['text_plain']).toArray()).toEqual([
        expect.objectContaining({ text_plain: text }),
      ]);
      t.close();
      reopened.close();
    } finally {
      await index.close();
    }
  });

  it('a write mixing stored and new ids appends the new rows and replaces the stored ones, never duplicating (issue 17)', async () => {
    const index = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 60_000 });
    const chunk = (documentId: string, chunkIndex: number, text: string) =>
      chunkRecord(3, 'mix', documentId, chunkIndex, text);
    try {
      await index.upsert([chunk('a', 0, 'first version of a'), chunk('b', 0, 'first version of b')]);
      // one call with a stored id and a new one, and concurrent calls the group commit writes together
      await Promise.all([
        index.upsert([chunk('a', 0, 'second version of a'), chunk('c', 0, 'only version of c')]),
        ...Array.from({ length: 12 }, (_, i) => index.upsert([chunk(`n${i}`, 0, `new document ${i}`)])),
        index.upsert([chunk('b', 0, 'second version of b'), chunk('b', 1, 'second chunk of b')]),
      ]);
      const db = await lancedb.connect(dir);
      const t = await db.openTable(embeddedTableName(space));
      const rows = (await t.query().where(`doc_set_name = 'mix'`).select(['id', 'text']).toArray()) as Array<{
        id: string;
        text: string;
      }>;
      t.close();
      db.close();
      const ids = rows.map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length); // no id twice
      expect(ids).toHaveLength(2 + 1 + 12 + 1);
      const text = Object.fromEntries(rows.map((r) => [r.id, r.text]));
      expect(Object.values(text)).toEqual(
        expect.arrayContaining([
          'second version of a',
          'second version of b',
          'second chunk of b',
          'only version of c',
        ]),
      );
      expect(Object.values(text)).not.toContain('first version of a');
      expect(Object.values(text)).not.toContain('first version of b');
      expect((await index.stats(3)).chunks).toBe(16);
    } finally {
      await index.close();
    }
  });

  it('a new instance replaces ids an earlier one stored, and stores a deleted id again once (issue 17: ids are not looked up per write)', async () => {
    const chunk = (documentId: string, text: string) => chunkRecord(5, 'again', documentId, 0, text);
    const first = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 60_000 });
    try {
      await first.upsert([chunk('a', 'a as the first process wrote it'), chunk('b', 'b before deletion')]);
    } finally {
      await first.close();
    }
    const second = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 60_000 });
    try {
      await second.upsert([chunk('a', 'a rewritten after a restart'), chunk('c', 'c is new')]);
      expect(await second.deleteByDocument(5, 'b')).toBe(1);
      await second.upsert([chunk('b', 'b written again after its deletion')]);
      await second.upsert([chunk('b', 'b written a third time')]);
      const db = await lancedb.connect(dir);
      const t = await db.openTable(embeddedTableName(space));
      const rows = (await t
        .query()
        .where(`doc_set_name = 'again'`)
        .select(['id', 'text'])
        .toArray()) as Array<{
        id: string;
        text: string;
      }>;
      t.close();
      db.close();
      expect(rows.map((r) => `${r.id}=${r.text}`).sort()).toEqual([
        'a:0=a rewritten after a restart',
        'b:0=b written a third time',
        'c:0=c is new',
      ]);
    } finally {
      await second.close();
    }
  });

  it('reports writes blocked while a write runs past its deadline, and not once it has ended', async () => {
    // A 1 ms write deadline: the caller is answered at once while the engine call goes on, holding
    // the write lock; indexing then stops embedding batches no write could take.
    const index = new EmbeddedSearchIndex({ dir, space, deadlines: { writeMs: 1 } });
    try {
      expect(index.writesBlocked()).toBeUndefined();
      const rows = Array.from({ length: 2000 }, (_, i) =>
        chunkRecord(7, 'blocked', `d${i}`, 0, `blocked write number ${i} about lighthouses`),
      );
      await expect(index.upsert(rows)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
      // asked at once: the engine call writing 2,000 rows is still running
      expect(index.writesBlocked()).toBe('1 write(s) running past their deadline');
      const deadline = Date.now() + 60_000;
      while (index.writesBlocked() !== undefined && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(index.writesBlocked()).toBeUndefined();
      expect((await index.stats(7)).chunks).toBe(2000);
    } finally {
      await index.close();
    }
  });

  it('closing while the maintenance a write just started waits for the lock logs no failure and keeps every row', async () => {
    // The 200th write starts index maintenance; a close right after it took the write lock first
    // and closed the table under the queued maintenance, which then failed ("Table ... is
    // closed") and logged a warning at every such shutdown.
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      const index = new EmbeddedSearchIndex({ dir, space });
      // 16 writers, as an indexing run's activities write: the last write resolves them together
      let next = 0;
      const writer = async () => {
        for (let i = next++; i < 200; i = next++)
          await index.upsert([chunkRecord(8, 'closing', `d${i}`, 0, `closing document ${i}`)]);
      };
      await Promise.all(Array.from({ length: 16 }, writer));
      await index.close();
      // a maintenance the table was closed under failed, and said so, just after close returned
      await new Promise((r) => setTimeout(r, 1000));
      expect(warn.mock.calls.map((c) => String(c[0])).filter((m) => /maintenance/.test(m))).toEqual([]);
      const reopened = new EmbeddedSearchIndex({ dir, space });
      try {
        expect((await reopened.stats(8)).chunks).toBe(200);
      } finally {
        await reopened.close();
      }
    } finally {
      warn.mockRestore();
    }
  });
});
