import { convexFusion, reciprocalRankFusion, RRF_K, withFusionMethod } from './fusion';
import type { SearchQuery } from './search.port';

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
