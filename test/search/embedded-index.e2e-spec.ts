import * as lancedb from '@lancedb/lancedb';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalHashingEmbedder } from '@docqa/llm';
import { EmbeddedSearchIndex, INDEX_LAYOUT_VERSION, versionedIndexName } from '@docqa/search';

/** Embedded-engine specifics: the layout upgrade from an older table of the same embedding space. */
describe('EmbeddedSearchIndex', () => {
  const embedder = new LocalHashingEmbedder();
  const space = { modelName: embedder.modelName, dimensions: embedder.dimensions };
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-embedded-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('copies the chunks of an older layout table into the new one, then drops the old table', async () => {
    const oldName = versionedIndexName('chunks', space, INDEX_LAYOUT_VERSION - 1);
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
      expect((await index.stats()).indexName).toBe(versionedIndexName('chunks', space));
      const reopened = await lancedb.connect(dir);
      await expect(reopened.openTable(oldName)).rejects.toThrow();
      reopened.close();
    } finally {
      await index.close();
    }
  });
});
