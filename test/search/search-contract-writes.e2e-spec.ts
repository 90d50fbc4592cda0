import { PartialIndexingError, SearchIndex } from '@docqa/search';
import { chunk, embedder, factories, MODES, openSubject, query, space } from './search-contract.fixture';

/**
 * The SearchIndex contract (search-contract.fixture.ts), part one: writes, replaces, deletes, limits and
 * persistence.
 */

const CORPUS = [
  'The geometry package sets page margins, paper size and the text area of a LaTeX document.',
  'Mnesia is a distributed database management system for Erlang applications with replicated tables.',
  'R is a language and environment for statistical computing and graphics, with data frames and vectors.',
  'Booktabs produces publication quality tables with rules of different weights above and below.',
  'Ghostscript colour management converts between ICC profiles for device independent colour.',
  'EUnit is a lightweight unit testing framework for Erlang with test generators and fixtures.',
];

describe.each(factories)('SearchIndex contract: %s', (_engine, make) => {
  let index: SearchIndex;
  const s = openSubject(make, (opened) => (index = opened));

  it('an empty index answers searches, stats and deletes with nothing', async () => {
    for (const mode of MODES) expect(await index.search(query({ text: 'margins', mode }))).toEqual([]);
    expect(await index.stats()).toMatchObject({
      chunks: 0,
      embeddingModel: space.modelName,
      dimensions: 768,
    });
    expect(await index.deleteByDocSet(1, 'manuals')).toBe(0);
    expect(await index.deleteByDocument(1, 'nope')).toBe(0);
    expect(await index.deleteByAccount(1)).toBe(0);
  });

  it('upserts chunks and finds them in every mode, fields intact', async () => {
    const chunks = CORPUS.map((text, i) =>
      chunk({
        text,
        documentId: 'corpus-doc',
        chunkIndex: i,
        pageNumber: String(i + 1),
        fileName: 'corpus.pdf',
      }),
    );
    expect(await index.upsert(chunks)).toEqual({ indexed: CORPUS.length });
    for (const mode of MODES) {
      const hits = await index.search(query({ text: 'geometry page margins', mode }));
      expect(hits[0].chunk).toEqual({
        id: 'corpus-doc:0',
        accountId: 1,
        docSetName: 'manuals',
        documentId: 'corpus-doc',
        fileName: 'corpus.pdf',
        pageNumber: '1',
        sourceType: 'S3',
        sourceId: 'bucket/manual.pdf',
        chunkIndex: 0,
        text: CORPUS[0],
        documentTitle: '',
        documentTerms: '',
        section: '',
      });
    }
    const hybrid = await index.search(query({ text: 'geometry page margins' }));
    expect(hybrid[0]).toMatchObject({ bm25Rank: 1, vectorRank: 1 });
    expect(hybrid[0].similarity).toBeGreaterThan(0.3);
    expect((await index.stats(1)).chunks).toBe(CORPUS.length);
  });

  it('re-indexing is idempotent: same ids replace, never duplicate', async () => {
    const c = chunk({ text: 'Idempotent chunk about quaternions', documentId: 'idem', chunkIndex: 0 });
    await index.upsert([c]);
    await index.upsert([
      { ...c, text: 'Idempotent chunk about octonions', embedding: embedder.embed('octonions') },
    ]);
    await index.upsert([c, { ...c, text: 'Idempotent chunk about octonions' }]); // last one in a batch wins
    const hits = await index.search(query({ text: 'idempotent', mode: 'bm25' }));
    expect(hits).toHaveLength(1);
    expect(hits[0].chunk.text).toBe('Idempotent chunk about octonions');
    expect(await index.deleteByDocument(1, 'idem')).toBe(1);
  });

  it('generations of one document live side by side; deleteChunks retires exactly one of them', async () => {
    const v1 = [0, 1, 2].map((i) =>
      chunk({ text: `Swap version one part ${i} pelican`, documentId: 'swap', chunkIndex: i }),
    );
    const v2 = [0, 1].map((i) =>
      chunk({ text: `Swap version two part ${i} pelican`, documentId: 'swap', chunkIndex: i, generation: 1 }),
    );
    await index.upsert(v1);
    await index.upsert(v2);
    const both = await index.search(query({ text: 'pelican', mode: 'bm25' }));
    expect(both.map((h) => h.chunk.id).sort()).toEqual([
      'swap:0',
      'swap:1',
      'swap:1:0',
      'swap:1:1',
      'swap:2',
    ]);
    expect(both.every((h) => !('generation' in h.chunk))).toBe(true);
    // Deletes are scoped to the account.
    expect(await index.deleteChunks(2, 'swap', 0, 3)).toBe(0);
    expect(await index.deleteChunks(1, 'swap', 0, 3)).toBe(3);
    const after = await index.search(query({ text: 'pelican', mode: 'bm25' }));
    expect(after.map((h) => h.chunk.text).sort()).toEqual([
      'Swap version two part 0 pelican',
      'Swap version two part 1 pelican',
    ]);
    expect(await index.deleteChunks(1, 'swap', 0, 3)).toBe(0);
    expect(await index.deleteChunks(1, 'swap', 1, 2)).toBe(2);
    expect(await index.search(query({ text: 'pelican', mode: 'bm25' }))).toEqual([]);
  });

  it('delete by docset leaves nothing of it, and nothing else is touched', async () => {
    await index.upsert([
      chunk({
        docSetName: 'doomed',
        documentId: 'doomed-1',
        chunkIndex: 0,
        text: 'Ephemeral doomed notes one',
      }),
      chunk({
        docSetName: 'doomed',
        documentId: 'doomed-1',
        chunkIndex: 1,
        text: 'Ephemeral doomed notes two',
      }),
      chunk({ docSetName: 'doomed', documentId: 'doomed-2', text: 'Ephemeral doomed notes three' }),
      chunk({ docSetName: 'kept', text: 'Ephemeral kept notes' }),
    ]);
    expect(await index.deleteByDocument(1, 'doomed-2')).toBe(1);
    expect(await index.deleteByDocSet(1, 'doomed')).toBe(2);
    for (const mode of MODES) {
      expect(
        await index.search(query({ docSetNames: ['doomed'], text: 'ephemeral doomed notes', mode })),
      ).toEqual([]);
      expect(await index.search(query({ docSetNames: ['kept'], text: 'ephemeral', mode }))).toHaveLength(1);
    }
    expect(await index.deleteByDocSet(1, 'doomed')).toBe(0);
  });

  it('handles unicode and very long text', async () => {
    const long = `${'lorem ipsum dolor sit amet '.repeat(8000)} finalword xylophone`;
    await index.upsert([
      chunk({ docSetName: 'uni', text: 'Größe der Ränder: café crème brûlée, naïve résumé 😀' }),
      chunk({ docSetName: 'uni', text: '日本語のテキスト検索 and Ελληνικά γράμματα' }),
      chunk({ docSetName: 'uni', text: long, fileName: 'très long — fichier.pdf', pageNumber: '12' }),
    ]);
    const cafe = await index.search(query({ docSetNames: ['uni'], text: 'café crème', mode: 'bm25' }));
    expect(cafe[0].chunk.text).toContain('café');
    const greek = await index.search(query({ docSetNames: ['uni'], text: 'Ελληνικά', mode: 'bm25' }));
    expect(greek[0].chunk.text).toContain('Ελληνικά');
    const tail = await index.search(query({ docSetNames: ['uni'], text: 'xylophone' }));
    expect(tail[0].chunk).toMatchObject({ fileName: 'très long — fichier.pdf', pageNumber: '12' });
    expect(tail[0].chunk.text).toHaveLength(long.length);
  });

  it('reports refused chunks instead of swallowing them, and writes the rest', async () => {
    const good = chunk({ docSetName: 'partial', text: 'A perfectly fine chunk' });
    const bad = { ...chunk({ docSetName: 'partial', text: 'Wrong dimensions' }), embedding: [1, 0, 0] };
    const err = await index.upsert([good, bad]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialIndexingError);
    expect(err).toMatchObject({ indexed: 1, failures: [{ id: `${bad.documentId}:0` }] });
    expect(await index.search(query({ docSetNames: ['partial'], text: 'perfectly fine' }))).toHaveLength(1);
  });

  it('stays consistent under concurrent writes and reads', async () => {
    const writes = Array.from({ length: 8 }, (_, w) =>
      index.upsert(
        Array.from({ length: 25 }, (_, i) =>
          chunk({
            docSetName: 'conc',
            documentId: `conc-${w}`,
            chunkIndex: i,
            text: `concurrent writer ${w} item ${i}`,
          }),
        ),
      ),
    );
    const reads = Array.from({ length: 8 }, () =>
      index.search(query({ docSetNames: ['conc'], text: 'concurrent' })),
    );
    await Promise.all([...writes, ...reads]);
    const hits = await index.search(
      query({ docSetNames: ['conc'], text: 'concurrent writer', limit: 1000, mode: 'bm25' }),
    );
    expect(hits).toHaveLength(200);
    expect(await index.deleteByDocSet(1, 'conc')).toBe(200);
  });

  it('bulk-indexes 10,000 chunks', async () => {
    const words = 'apple banana cherry delta echo foxtrot golf hotel india juliet kilo lima mike'.split(' ');
    const chunks = Array.from({ length: 10_000 }, (_, i) =>
      chunk({
        accountId: 21,
        docSetName: 'bulk',
        documentId: `bulk-${Math.floor(i / 100)}`,
        chunkIndex: i % 100,
        text: `${words[i % 13]} ${words[(i * 7) % 13]} ${words[(i * 11) % 13]} record number n${i}`,
      }),
    );
    chunks[9_876] = { ...chunks[9_876], text: 'needle in the haystack quasar' };
    const t0 = Date.now();
    expect(await index.upsert(chunks)).toEqual({ indexed: 10_000 });
    const ms = Date.now() - t0;
    expect((await index.stats(21)).chunks).toBe(10_000);
    const hits = await index.search(query({ accountId: 21, docSetNames: ['bulk'], text: 'quasar haystack' }));
    expect(hits[0].chunk.id).toBe('bulk-98:76');
    console.log(`[${index.engine}] bulk 10,000 chunks in ${ms} ms`);
    expect(await index.deleteByAccount(21)).toBe(10_000);
  });

  it('persists across restarts (embedded) / reports health', async () => {
    expect(await index.health()).toMatchObject({ engine: index.engine, up: true });
    if (!s.reopen) return;
    await index.upsert([chunk({ docSetName: 'persist', text: 'Durable words survive restarts' })]);
    index = await s.reopen();
    const hits = await index.search(query({ docSetNames: ['persist'], text: 'durable restarts' }));
    expect(hits).toHaveLength(1);
    expect(await index.health()).toMatchObject({ up: true });
  });
});
