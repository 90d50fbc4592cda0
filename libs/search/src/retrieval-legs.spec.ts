import { inStableOrder, LegHit, RetrievalLegs, runSearch } from './retrieval-legs';
import type { SearchQuery, StoredChunk } from './search.port';

/** A stored chunk whose id and text are `n`. */
const chunk = (n: string): StoredChunk => ({
  id: n,
  accountId: 1,
  docSetName: 'ds',
  documentId: 'd',
  fileName: 'f.pdf',
  pageNumber: '1',
  sourceType: 'S3',
  sourceId: 's',
  chunkIndex: 0,
  text: n,
});

describe('runSearch', () => {
  const hits = (...ids: string[]): LegHit[] => ids.map((i, n) => ({ chunk: chunk(i), score: 10 - n }));
  const legs: RetrievalLegs = {
    bm25: async () => hits('a', 'b', 'c'),
    vector: async () => hits('c', 'd'),
  };
  const q: SearchQuery = {
    accountId: 1,
    docSetNames: ['ds'],
    text: 'x',
    vector: [1, 0],
    limit: 10,
    minimumSimilarityScore: 0,
  };

  it('fuses both legs in hybrid mode and reports leg ranks', async () => {
    const out = await runSearch({ ...q, fusion: { method: 'rrf' } }, legs, 2);
    expect(out.map((h) => h.chunk.id)).toEqual(['c', 'a', 'b', 'd']);
    expect(out[0]).toMatchObject({ bm25Rank: 3, vectorRank: 1, similarity: 10 });
  });

  it('fuses with the convex combination unless the query asks for RRF', async () => {
    // BM25 a 10, b 9, c 8 -> 1, 0.5, 0; vector c 10, d 9 -> 1, 0; averaged: a 0.5, c 0.5, b 0.25, d 0
    const out = await runSearch(q, legs, 2);
    expect(out.map((h) => [h.chunk.id, h.score])).toEqual([
      ['a', 0.5],
      ['c', 0.5],
      ['b', 0.25],
      ['d', 0],
    ]);
    expect(out[1]).toMatchObject({ bm25Rank: 3, vectorRank: 1, similarity: 10 });
  });

  it('runs one leg in bm25 and vector modes, and BM25 only without a vector', async () => {
    expect((await runSearch({ ...q, mode: 'bm25' }, legs, 2)).map((h) => h.chunk.id)).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect((await runSearch({ ...q, mode: 'vector' }, legs, 2)).map((h) => h.chunk.id)).toEqual(['c', 'd']);
    expect((await runSearch({ ...q, vector: undefined }, legs, 2)).map((h) => h.chunk.id)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it("ranks a leg's hits in a stable order: scores equal to SCORE_DIGITS digits tie, ties by file, document, chunk", async () => {
    const at = (name: string, fileName: string, chunkIndex: number, score: number): LegHit => ({
      chunk: { ...chunk(name), fileName, chunkIndex },
      score,
    });
    // as an engine returns them: float32 sums a few units apart in the seventh digit, in row order
    const engine = [
      at('z', 'z.pdf', 0, 24.797443),
      at('a2', 'a.pdf', 2, 24.79744),
      at('a1', 'a.pdf', 1, 24.797441),
      at('m', 'm.pdf', 0, 30.1),
      at('b', 'b.pdf', 0, 24.79),
    ];
    const stable = inStableOrder(engine);
    expect(stable.map((h) => [h.chunk.id, h.score])).toEqual([
      ['m', 30.1],
      ['a1', 24.797],
      ['a2', 24.797],
      ['z', 24.797],
      ['b', 24.79],
    ]);
    expect(inStableOrder([...engine].reverse())).toEqual(stable);
    const shuffled: RetrievalLegs = { bm25: async () => engine, vector: async () => [...engine].reverse() };
    for (const mode of ['bm25', 'vector', 'hybrid'] as const)
      expect((await runSearch({ ...q, mode }, shuffled, 2)).map((h) => h.chunk.id)).toEqual([
        'm',
        'a1',
        'a2',
        'z',
        'b',
      ]);
  });

  it('returns nothing without docsets and validates the query', async () => {
    expect(await runSearch({ ...q, docSetNames: [] }, legs, 2)).toEqual([]);
    await expect(runSearch({ ...q, vector: [1, 2, 3] }, legs, 2)).rejects.toThrow(/dimensions/);
    await expect(runSearch({ ...q, limit: 0 }, legs, 2)).rejects.toThrow(/limit/);
    await expect(runSearch({ ...q, accountId: 0 }, legs, 2)).rejects.toThrow(/accountId/);
    await expect(runSearch({ ...q, accountId: 1.5 }, legs, 2)).rejects.toThrow(/accountId/);
    await expect(runSearch({ ...q, mode: 'vector', vector: undefined }, legs, 2)).rejects.toThrow(/vector/);
  });
});
describe('runSearch fusion options', () => {
  it('weights the vector leg and uses k', async () => {
    const legs: RetrievalLegs = {
      bm25: async () => [{ chunk: chunk('b'), score: 1 }],
      vector: async () => [{ chunk: chunk('v'), score: 1 }],
    };
    const q: SearchQuery = {
      accountId: 1,
      docSetNames: ['ds'],
      text: 'x',
      vector: [1],
      limit: 10,
      minimumSimilarityScore: 0,
    };
    // equal weights: tie broken by list order (BM25 first)
    expect((await runSearch({ ...q, fusion: { method: 'rrf' } }, legs, 1)).map((h) => h.chunk.id)).toEqual([
      'b',
      'v',
    ]);
    const weighted = await runSearch({ ...q, fusion: { method: 'rrf', k: 0, vectorWeight: 2 } }, legs, 1);
    expect(weighted.map((h) => [h.chunk.id, h.score])).toEqual([
      ['v', 2],
      ['b', 1],
    ]);
  });
});
