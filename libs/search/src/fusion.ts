import type { SearchHit, SearchQuery, StoredChunk } from './search.port';

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

/** A hit of one retrieval leg, best first. */
export interface LegHit {
  chunk: StoredChunk;
  score: number;
}

/** The two legs an adapter implements; fusion and validation are shared here. */
export interface RetrievalLegs {
  bm25(q: SearchQuery, size: number): Promise<LegHit[]>;
  /** Hits with cosine similarity >= q.minimumSimilarityScore only; `score` is that similarity. */
  vector(q: SearchQuery & { vector: number[] }, size: number): Promise<LegHit[]>;
}

export const MAX_SEARCH_LIMIT = 1000;

/** Candidates fetched per leg before fusion: enough depth for RRF to matter, bounded for latency. */
export function candidateDepth(limit: number): number {
  return Math.min(Math.max(limit * 4, 50), MAX_SEARCH_LIMIT);
}

export function validateQuery(q: SearchQuery, dimensions: number): void {
  if (!q.accountId) throw new RangeError('search: accountId is required');
  if (!Number.isInteger(q.limit) || q.limit < 1 || q.limit > MAX_SEARCH_LIMIT) {
    throw new RangeError(`search: limit must be an integer 1-${MAX_SEARCH_LIMIT}`);
  }
  if (q.vector && q.vector.length !== dimensions) {
    throw new RangeError(
      `search: query vector has ${q.vector.length} dimensions, the index has ${dimensions}`,
    );
  }
  if ((q.mode ?? 'hybrid') === 'vector' && !q.vector)
    throw new RangeError('search: vector mode needs a vector');
}

/** Runs the legs the mode asks for and fuses them with RRF (hybrid) or returns one leg. */
export async function runSearch(
  q: SearchQuery,
  legs: RetrievalLegs,
  dimensions: number,
): Promise<SearchHit[]> {
  validateQuery(q, dimensions);
  if (q.docSetNames.length === 0 || (q.mode !== 'vector' && !q.text.trim() && !q.vector)) return [];
  const mode = q.mode ?? 'hybrid';
  if (mode === 'bm25' || (mode === 'hybrid' && !q.vector)) {
    if (!q.text.trim()) return [];
    const hits = await legs.bm25(q, q.limit);
    return hits.map((h, i) => ({ chunk: h.chunk, score: h.score, bm25Rank: i + 1 }));
  }
  const vq = { ...q, vector: q.vector as number[] };
  if (mode === 'vector') {
    const hits = await legs.vector(vq, q.limit);
    return hits.map((h, i) => ({ chunk: h.chunk, score: h.score, vectorRank: i + 1, similarity: h.score }));
  }
  const depth = candidateDepth(q.limit);
  const [bm25, vector] = await Promise.all([
    q.text.trim() ? legs.bm25(q, depth) : Promise.resolve([]),
    legs.vector(vq, depth),
  ]);
  const similarity = new Map(vector.map((h) => [h.chunk.id, h.score]));
  const fused = reciprocalRankFusion(
    [{ items: bm25 }, { items: vector, weight: q.fusion?.vectorWeight ?? 1 }],
    (h) => h.chunk.id,
    { limit: q.limit, k: q.fusion?.k ?? RRF_K },
  );
  return fused.map((f) => ({
    chunk: f.item.chunk,
    score: f.score,
    bm25Rank: f.ranks[0],
    vectorRank: f.ranks[1],
    similarity: similarity.get(f.item.chunk.id),
  }));
}
