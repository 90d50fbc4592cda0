import type { FusionMethod, SearchQuery } from './search.port';

/** Rank constant of reciprocal rank fusion (Cormack et al. 2009; also Elasticsearch's default). */
export const RRF_K = 60;

export interface RankedList<T> {
  /** Items best first; rank = position + 1. */
  items: readonly T[];
  /** Multiplies this list's contribution (default 1). */
  weight?: number;
}

export interface Fused<T> {
  item: T;
  score: number;
  /** 1-based rank of the item in each input list (undefined where it is absent). */
  ranks: Array<number | undefined>;
}

/**
 * Reciprocal rank fusion: score(d) = sum over lists of weight / (k + rank(d)). Pure and
 * deterministic: ties are broken by the best rank in any list, then by first appearance (list
 * order, then position), so equal inputs always give equal output.
 */
export function reciprocalRankFusion<T>(
  lists: ReadonlyArray<RankedList<T>>,
  key: (item: T) => string,
  options: { k?: number; limit?: number } = {},
): Fused<T>[] {
  const k = options.k ?? RRF_K;
  if (!(k >= 0)) throw new RangeError('k must be >= 0');
  const byKey = new Map<string, Fused<T> & { first: number; best: number }>();
  let seen = 0;
  lists.forEach((list, li) => {
    const weight = list.weight ?? 1;
    list.items.forEach((item, pos) => {
      const id = key(item);
      let f = byKey.get(id);
      if (!f) {
        f = { item, score: 0, ranks: new Array(lists.length).fill(undefined), first: seen++, best: Infinity };
        byKey.set(id, f);
      }
      if (f.ranks[li] !== undefined) return; // duplicates inside one list count once, at their best rank
      const rank = pos + 1;
      f.ranks[li] = rank;
      f.score += weight / (k + rank);
      f.best = Math.min(f.best, rank);
    });
  });
  const out = [...byKey.values()].sort((a, b) => b.score - a.score || a.best - b.best || a.first - b.first);
  const limited = options.limit === undefined ? out : out.slice(0, options.limit);
  return limited.map(({ item, score, ranks }) => ({ item, score, ranks }));
}

export const DEFAULT_FUSION_METHOD: FusionMethod = 'convex';

/** Legs whose scores are comparable (BM25 with BM25, cosine with cosine), and their weight. */
export interface ScoreKind<T> {
  /** Lists of this kind, each best first with its own score (the first one gives `ranks`). */
  lists: ReadonlyArray<ReadonlyArray<{ item: T; score: number }>>;
  /** Weight of this kind in the combination (default 1). */
  weight?: number;
}

/**
 * Convex combination of normalised scores (Bruch, Gai and Ingber 2023, "An analysis of fusion
 * functions for hybrid retrieval"): score(d) = sum over kinds of weight * norm(d) / sum of weights,
 * where norm is the kind's score min-max normalised over every candidate of that kind (0 where d is
 * not among them), then multiplied by `boost(d)`. Unlike RRF it keeps how far apart the legs' scores
 * are, not only their order: a chunk far ahead in one leg stays ahead. Ties as in
 * `reciprocalRankFusion`; `ranks` holds each kind's first list's rank.
 */
export function convexFusion<T>(
  kinds: ReadonlyArray<ScoreKind<T>>,
  key: (item: T) => string,
  options: { boost?: (item: T) => number } = {},
): Fused<T>[] {
  const totalWeight = kinds.reduce((sum, k) => sum + (k.weight ?? 1), 0);
  if (!(totalWeight > 0)) throw new RangeError('the weights must add up to more than 0');
  const byKey = new Map<string, Fused<T> & { first: number; best: number }>();
  let seen = 0;
  kinds.forEach((kind, ki) => {
    const scores = kind.lists.flatMap((l) => l.map((x) => x.score));
    if (scores.length === 0) return;
    const max = Math.max(...scores);
    const min = Math.min(...scores);
    const weight = (kind.weight ?? 1) / totalWeight;
    const norm = (score: number) => (max > min ? (score - min) / (max - min) : 1);
    const best = new Map<string, number>();
    kind.lists.forEach((list, li) =>
      list.forEach(({ item, score }, pos) => {
        const id = key(item);
        let f = byKey.get(id);
        if (!f) {
          f = {
            item,
            score: 0,
            ranks: new Array(kinds.length).fill(undefined),
            first: seen++,
            best: Infinity,
          };
          byKey.set(id, f);
        }
        if (li === 0 && f.ranks[ki] === undefined) f.ranks[ki] = pos + 1;
        f.best = Math.min(f.best, pos + 1);
        // an item in several lists of one kind (a routed leg repeats the unrestricted one's
        // scores) counts once, at its best score
        best.set(id, Math.max(best.get(id) ?? -Infinity, score));
      }),
    );
    for (const [id, score] of best) byKey.get(id)!.score += weight * norm(score);
  });
  const boost = options.boost;
  const out = [...byKey.values()];
  if (boost) for (const f of out) f.score *= boost(f.item);
  out.sort((a, b) => b.score - a.score || a.best - b.best || a.first - b.first);
  return out.map(({ item, score, ranks }) => ({ item, score, ranks }));
}

/** `q` with `method` as its fusion method unless it names one (the engine's SEARCH_FUSION). */
export function withFusionMethod(q: SearchQuery, method: FusionMethod | undefined): SearchQuery {
  return !method || q.fusion?.method ? q : { ...q, fusion: { ...q.fusion, method } };
}
