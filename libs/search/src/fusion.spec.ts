import {
  convexFusion,
  diversify,
  inStableOrder,
  LegHit,
  reciprocalRankFusion,
  RetrievalLegs,
  routedDocuments,
  withDays,
  RRF_K,
  runSearch,
  withFusionMethod,
} from './fusion';
import type { SearchQuery, StoredChunk } from './search.port';

const id = (s: string) => s;

describe('reciprocalRankFusion', () => {
  it('sums 1/(k + rank) over lists', () => {
    const out = reciprocalRankFusion([{ items: ['a', 'b', 'c'] }, { items: ['c', 'a', 'd'] }], id);
    const score = Object.fromEntries(out.map((f) => [f.item, f.score]));
    expect(score.a).toBeCloseTo(1 / (RRF_K + 1) + 1 / (RRF_K + 2));
    expect(score.c).toBeCloseTo(1 / (RRF_K + 3) + 1 / (RRF_K + 1));
    expect(score.b).toBeCloseTo(1 / (RRF_K + 2));
    expect(score.d).toBeCloseTo(1 / (RRF_K + 3));
    expect(out.map((f) => f.item)).toEqual(['a', 'c', 'b', 'd']);
    expect(out[0].ranks).toEqual([1, 2]);
    expect(out[3].ranks).toEqual([undefined, 3]);
  });

  it('puts an item ranked well in both lists above one ranked first in only one', () => {
    const out = reciprocalRankFusion([{ items: ['x', 'both'] }, { items: ['y', 'both'] }], id);
    expect(out[0].item).toBe('both');
  });

  it('breaks ties by best rank, then first appearance, deterministically', () => {
    const out = reciprocalRankFusion([{ items: ['a', 'b'] }, { items: ['b', 'a'] }], id);
    expect(out.map((f) => f.item)).toEqual(['a', 'b']);
    const single = reciprocalRankFusion([{ items: ['p'] }, { items: ['q'] }], id);
    expect(single.map((f) => f.item)).toEqual(['p', 'q']);
  });

  it('honours k, weights, limit; counts duplicates in one list once', () => {
    const out = reciprocalRankFusion([{ items: ['a', 'a', 'b'] }, { items: ['b'], weight: 3 }], id, {
      k: 0,
      limit: 1,
    });
    expect(out).toEqual([{ item: 'b', score: 1 / 3 + 3, ranks: [3, 1] }]);
    expect(reciprocalRankFusion([], id)).toEqual([]);
    expect(() => reciprocalRankFusion([], id, { k: -1 })).toThrow(RangeError);
  });
});

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

describe('convexFusion', () => {
  const scored = (...pairs: Array<[string, number]>) => pairs.map(([item, score]) => ({ item, score }));

  it('averages the min-max normalised scores of each kind with their weights', () => {
    const out = convexFusion(
      [
        { lists: [scored(['a', 12], ['b', 7], ['c', 2])] },
        { lists: [scored(['c', 0.9], ['d', 0.5], ['a', 0.1])], weight: 3 },
      ],
      id,
    );
    const score = Object.fromEntries(out.map((f) => [f.item, f.score]));
    expect(score.a).toBeCloseTo(0.25 * 1 + 0.75 * 0);
    expect(score.b).toBeCloseTo(0.25 * 0.5);
    expect(score.c).toBeCloseTo(0.25 * 0 + 0.75 * 1);
    expect(score.d).toBeCloseTo(0.75 * 0.5);
    expect(out.map((f) => f.item)).toEqual(['c', 'd', 'a', 'b']);
    expect(out[0].ranks).toEqual([3, 1]);
    expect(out.find((f) => f.item === 'd')!.ranks).toEqual([undefined, 2]);
  });

  it('keeps how far ahead a leg puts an item, where RRF keeps only the order', () => {
    // `far` leads BM25 by a wide margin and is fourth of the vector candidates, not far behind;
    // `second` is second in both legs. RRF puts `second` first; the scores put `far` first.
    const bm25 = scored(['far', 30], ['second', 11], ['x', 10]);
    const vector = scored(['y', 0.8], ['second', 0.79], ['z', 0.6], ['far', 0.55], ['w', 0.1]);
    const convex = convexFusion([{ lists: [bm25] }, { lists: [vector] }], id).map((f) => f.item);
    const rrf = reciprocalRankFusion(
      [{ items: bm25.map((x) => x.item) }, { items: vector.map((x) => x.item) }],
      id,
    ).map((f) => f.item);
    expect(rrf[0]).toBe('second');
    expect(convex[0]).toBe('far');
  });

  it('counts an item of several lists of one kind once, at its best score, and applies the boost', () => {
    const out = convexFusion([{ lists: [scored(['a', 4], ['b', 2]), scored(['b', 2], ['c', 0])] }], id, {
      boost: (item) => (item === 'c' ? 10 : 1),
    });
    expect(out.map((f) => [f.item, f.score])).toEqual([
      ['a', 1],
      ['b', 0.5],
      ['c', 0],
    ]);
    const boosted = convexFusion([{ lists: [scored(['a', 4], ['b', 2], ['c', 0])] }], id, {
      boost: (item) => (item === 'b' ? 3 : 1),
    });
    expect(boosted.map((f) => f.item)).toEqual(['b', 'a', 'c']);
  });

  it('scores a kind whose candidates all score the same as 1, and ignores an empty kind', () => {
    const out = convexFusion([{ lists: [scored(['a', 5], ['b', 5])] }, { lists: [[]] }], id);
    expect(out.map((f) => [f.item, f.score])).toEqual([
      ['a', 0.5],
      ['b', 0.5],
    ]);
    expect(() => convexFusion([{ lists: [], weight: 0 }], id)).toThrow(RangeError);
  });

  it("takes the engine's method only where the query names none", () => {
    const q: SearchQuery = {
      accountId: 1,
      docSetNames: ['ds'],
      text: 'x',
      limit: 1,
      minimumSimilarityScore: 0,
    };
    expect(withFusionMethod(q, 'rrf').fusion).toEqual({ method: 'rrf' });
    expect(withFusionMethod({ ...q, fusion: { vectorWeight: 2 } }, 'rrf').fusion).toEqual({
      method: 'rrf',
      vectorWeight: 2,
    });
    expect(withFusionMethod({ ...q, fusion: { method: 'convex' } }, 'rrf').fusion).toEqual({
      method: 'convex',
    });
    expect(withFusionMethod(q, undefined)).toBe(q);
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

describe('document routing and diversity', () => {
  const chunk = (id: string, documentId: string): StoredChunk => ({
    id,
    accountId: 1,
    docSetName: 'ds',
    documentId,
    fileName: `${documentId}.pdf`,
    pageNumber: '1',
    sourceType: 'S3',
    sourceId: 's',
    chunkIndex: 0,
    text: id,
  });
  const q: SearchQuery = {
    accountId: 1,
    docSetNames: ['ds'],
    text: 'flight time Tallahassee',
    vector: [1],
    limit: 3,
    minimumSimilarityScore: 0,
  };

  it('routes to the documents whose context comes close to the best, unless too many do', () => {
    const o = { weight: 1, share: 0.6, maxDocuments: 2 };
    const docs = (...scores: number[]) => scores.map((score, i) => ({ documentId: `d${i}`, score }));
    expect(routedDocuments(docs(10, 7, 3), o)).toEqual(['d0', 'd1']);
    expect(routedDocuments(docs(10, 9, 8), o)).toEqual([]); // nothing tells them apart
    expect(routedDocuments(docs(10), o)).toEqual(['d0']);
    // a document being re-indexed shows up in two generations
    expect(routedDocuments([...docs(10, 7), { documentId: 'd0', score: 10 }], o)).toEqual(['d0', 'd1']);
    expect(routedDocuments([], o)).toEqual([]);
  });

  it('adds legs restricted to the routed documents, so their chunks rank first', async () => {
    const seen: Array<string[] | undefined> = [];
    const legs: RetrievalLegs = {
      bm25: async (lq) => {
        seen.push(lq.documentIds);
        return lq.documentIds
          ? [{ chunk: chunk('t2', 'tal'), score: 1 }]
          : [
              { chunk: chunk('o1', 'other'), score: 3 },
              { chunk: chunk('o2', 'other'), score: 2 },
              { chunk: chunk('t2', 'tal'), score: 1 },
            ];
      },
      vector: async (lq) => (lq.documentIds ? [{ chunk: chunk('t2', 'tal'), score: 0.5 }] : []),
      documents: async () => [
        { documentId: 'tal', score: 9 },
        { documentId: 'other', score: 1 },
      ],
    };
    const routed = await runSearch(q, legs, 1);
    expect(seen).toEqual([undefined, ['tal']]);
    expect(routed[0].chunk.id).toBe('t2');
    const plain = await runSearch({ ...q, routing: { weight: 0 } }, legs, 1);
    expect(plain[0].chunk.id).toBe('o1');
  });

  it('routes to the documents holding a day the query names, besides its context match', async () => {
    // the context match of the whole query prefers `other` (it shares a frequent word with it);
    // the day's token alone finds the two documents of that day
    expect(withDays(['other'], ['d8a', 'd8b'])).toEqual(['other', 'd8a', 'd8b']);
    // a document matching both the words and the day narrows the routing to it
    expect(withDays(['tal', 'other'], ['tal', 'd8b'])).toEqual(['tal']);
    expect(withDays(['tal'], [])).toEqual(['tal']);
    const texts: string[] = [];
    const routedTo: Array<string[] | undefined> = [];
    const legs: RetrievalLegs = {
      bm25: async (lq) => {
        routedTo.push(lq.documentIds);
        return [];
      },
      vector: async () => [],
      documents: async (lq) => {
        texts.push(lq.text);
        return lq.text === '20071208'
          ? [
              { documentId: 'd8a', score: 2 },
              { documentId: 'd8b', score: 2 },
            ]
          : [
              { documentId: 'other', score: 9 },
              { documentId: 'd8a', score: 3 },
            ];
      },
    };
    await runSearch({ ...q, text: 'Which accidents happened on December 8, 2007?' }, legs, 1);
    expect(texts).toContain('20071208');
    expect(routedTo[1]?.sort()).toEqual(['d8a', 'd8b', 'other']);
  });

  it('keeps at most perDocument chunks of one document ahead of other documents', async () => {
    expect(diversify(['a1', 'a2', 'a3', 'b1', 'a4', 'c1'], (x) => x[0], 2)).toEqual([
      'a1',
      'a2',
      'b1',
      'c1',
      'a3',
      'a4',
    ]);
    const legs: RetrievalLegs = {
      bm25: async () => ['a1', 'a2', 'a3', 'b1'].map((id, i) => ({ chunk: chunk(id, id[0]), score: 9 - i })),
      vector: async () => [],
    };
    const out = await runSearch({ ...q, diversity: { perDocument: 1 } }, legs, 1);
    expect(out.map((h) => h.chunk.id)).toEqual(['a1', 'b1', 'a2']);
  });
});
