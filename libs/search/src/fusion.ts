import { dateTokens, statePostalCodes, withPeriodTerms } from '@docqa/text';
import type { FusionMethod, SearchHit, SearchQuery, StoredChunk } from './search.port';

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

/** A hit of one retrieval leg, best first. */
export interface LegHit {
  chunk: StoredChunk;
  score: number;
}

/** A document whose context matches the query, best first. */
export interface DocumentHit {
  documentId: string;
  score: number;
}

/** Boosts of the BM25 leg's fields relative to the chunk text (1). */
export interface FieldBoosts {
  section: number;
  documentTitle: number;
  documentTerms: number;
}

export const DEFAULT_FIELD_BOOSTS: FieldBoosts = { section: 0.5, documentTitle: 1, documentTerms: 1 };

/**
 * The query of the BM25 leg: the text plus the tokens of its dates (`dateTokens`) and the postal
 * codes of the US states it names (documents write `Tallahassee, FL`).
 */
export function contextQueryText(text: string): string {
  const extra = [...dateTokens(text), ...statePostalCodes(text)];
  return extra.length ? `${text} ${extra.join(' ')}` : text;
}

/**
 * The engines store account ids as strings (Elasticsearch keyword field `accountId`, LanceDB
 * column `account_id`), as they have been since the first index: the port takes numbers and each
 * adapter stores and filters on this form, so existing indices need no re-index.
 */
export function storedAccountId(accountId: number): string {
  if (!Number.isSafeInteger(accountId) || accountId < 1)
    throw new RangeError(`search: accountId must be a positive integer, got ${String(accountId)}`);
  return String(accountId);
}

/**
 * A leg's query: the account as stored (`storedAccountId`), optionally restricted to some
 * documents (the routed legs).
 */
export type LegQuery = Omit<SearchQuery, 'accountId'> & { storedAccountId: string; documentIds?: string[] };

/** The legs an adapter implements; fusion, routing and validation are shared here. */
export interface RetrievalLegs {
  bm25(q: LegQuery, size: number): Promise<LegHit[]>;
  /** Hits with cosine similarity >= q.minimumSimilarityScore only; `score` is that similarity. */
  vector(q: LegQuery & { vector: number[] }, size: number): Promise<LegHit[]>;
  /** Documents ranked by their context fields alone (document routing); optional. */
  documents?(q: LegQuery, size: number): Promise<DocumentHit[]>;
}

/** Documents the routing leg looks at. */
const ROUTING_DEPTH = 50;

export interface RoutingOptions {
  /**
   * Weight of the routed legs in the fusion, convex or RRF (the unrestricted BM25 leg has 1;
   * docs/search-engine.md); 0 turns routing off.
   */
  weight: number;
  /** A document is routed to when its context score is at least this share of the best. */
  share: number;
  /** Most documents routed to. */
  maxDocuments: number;
}

export const DEFAULT_ROUTING: RoutingOptions = { weight: 1, share: 0.6, maxDocuments: 4 };

/**
 * The documents a query names: those whose context score comes close to the best one. When
 * more than `maxDocuments` come close, the query names nothing that tells documents apart
 * (or names something most of them share), and there is no routing.
 */
export function routedDocuments(hits: DocumentHit[], o: RoutingOptions): string[] {
  if (hits.length === 0 || !(hits[0].score > 0)) return [];
  // A document being re-indexed has a chunk 0 in two generations: count it once.
  const close = [...new Set(hits.filter((h) => h.score >= o.share * hits[0].score).map((h) => h.documentId))];
  return close.length > o.maxDocuments ? [] : close;
}

/** Length of a day's token (`20071208`; a month's is `200712`). */
const DAY_TOKEN_LENGTH = 8;

/**
 * The routed documents once the days a query names are taken into account. A day is an identifier
 * of the documents that hold it, but in the context match of the whole query its one token weighs
 * no more than a word the query shares with many documents ("accidents", "December"), so the
 * documents holding the query's days (`dated`, found by their day tokens alone) are routed to as
 * well: those of the context match that hold the day when there are any, else both.
 */
export function withDays(routed: string[], dated: string[]): string[] {
  if (dated.length === 0) return routed;
  const both = routed.filter((d) => dated.includes(d));
  return both.length ? both : [...new Set([...routed, ...dated])];
}

/**
 * Diversity across documents: at most `perDocument` chunks of one document in a first pass
 * over the ranking, the rest after them in their order. List and compare questions need their
 * passages from several documents, not the top pages of one.
 */
export function diversify<T>(items: readonly T[], documentOf: (item: T) => string, perDocument: number): T[] {
  const count = new Map<string, number>();
  const first: T[] = [];
  const rest: T[] = [];
  for (const item of items) {
    const d = documentOf(item);
    const n = count.get(d) ?? 0;
    count.set(d, n + 1);
    (n < perDocument ? first : rest).push(item);
  }
  return [...first, ...rest];
}

/**
 * Significant digits a leg's score keeps. The engines sum scores in float32, and the order of the
 * sum follows the index's layout (the embedded engine's full-text index partitions, Elasticsearch's
 * segments), so the same content scores a few units in the seventh digit apart from one index to
 * the next. Scores equal to this many digits are ties.
 */
export const SCORE_DIGITS = 5;

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A leg's hits with scores rounded to SCORE_DIGITS, best first, ties in the order of file name,
 * document, chunk: the same content ranks the same way whatever the index's history, instead of in
 * whatever order the engine met equal scores (its row order, segment order, thread timing).
 */
export function inStableOrder(hits: readonly LegHit[]): LegHit[] {
  return hits
    .map((h) => ({ chunk: h.chunk, score: roundedScore(h.score) }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        byCodeUnits(a.chunk.fileName, b.chunk.fileName) ||
        byCodeUnits(a.chunk.documentId, b.chunk.documentId) ||
        a.chunk.chunkIndex - b.chunk.chunkIndex ||
        byCodeUnits(a.chunk.id, b.chunk.id),
    );
}

function roundedScore(score: number): number {
  return Number.isFinite(score) && score !== 0 ? Number(score.toPrecision(SCORE_DIGITS)) : score;
}

/** The legs with every chunk leg's hits in stable order and document scores rounded alike. */
function stableLegs(legs: RetrievalLegs): RetrievalLegs {
  const documents = legs.documents?.bind(legs);
  return {
    bm25: async (q, size) => inStableOrder(await legs.bm25(q, size)),
    vector: async (q, size) => inStableOrder(await legs.vector(q, size)),
    ...(documents
      ? {
          documents: async (q: LegQuery, size: number) =>
            (await documents(q, size)).map((h) => ({
              documentId: h.documentId,
              score: roundedScore(h.score),
            })),
        }
      : {}),
  };
}

const asScored = (hits: LegHit[]) => hits.map((h) => ({ item: h, score: h.score }));

const routedBoost = (routed: Set<string>, weight: number) => (h: LegHit) =>
  routed.has(h.chunk.documentId) ? 1 + weight : 1;

export const MAX_SEARCH_LIMIT = 1000;

/** Candidates fetched per leg before fusion: enough depth for the fusion to matter, bounded for latency. */
export function candidateDepth(limit: number): number {
  return Math.min(Math.max(limit * 4, 50), MAX_SEARCH_LIMIT);
}

export function validateQuery(q: Omit<SearchQuery, 'accountId'>, dimensions: number): void {
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

/** `q` with `method` as its fusion method unless it names one (the engine's SEARCH_FUSION). */
export function withFusionMethod(q: SearchQuery, method: FusionMethod | undefined): SearchQuery {
  return !method || q.fusion?.method ? q : { ...q, fusion: { ...q.fusion, method } };
}

/** Runs the legs the mode asks for and fuses them (hybrid: `DEFAULT_FUSION_METHOD`) or returns one leg. */
export async function runSearch(
  q: SearchQuery,
  legs: RetrievalLegs,
  dimensions: number,
): Promise<SearchHit[]> {
  const { accountId, ...rest } = q;
  return runLegs({ ...rest, storedAccountId: storedAccountId(accountId) }, legs, dimensions);
}

/**
 * `runSearch` for a query already in the stored form; the embedded engine's health probe uses it
 * with its probe row's account, which is no account id.
 */
export async function runLegs(
  q: LegQuery,
  engineLegs: RetrievalLegs,
  dimensions: number,
): Promise<SearchHit[]> {
  validateQuery(q, dimensions);
  // Periods as filings' titles write them (`FY 2022` -> `FY2022`), so a question that names a
  // fiscal year or quarter matches the filing for it (libs/text filing.ts).
  q = { ...q, text: withPeriodTerms(q.text) };
  const legs = stableLegs(engineLegs);
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
  const routing = { ...DEFAULT_ROUTING, ...(q.routing ?? {}) };
  const route = routing.weight > 0 && !!legs.documents && !!q.text.trim();
  const days = dateTokens(q.text).filter((t) => t.length === DAY_TOKEN_LENGTH);
  const [bm25, vector, documentHits, dayHits] = await Promise.all([
    q.text.trim() ? legs.bm25(q, depth) : Promise.resolve([]),
    legs.vector(vq, depth),
    route && legs.documents ? legs.documents(q, ROUTING_DEPTH) : Promise.resolve([]),
    route && legs.documents && days.length
      ? legs.documents({ ...q, text: days.join(' ') }, ROUTING_DEPTH)
      : Promise.resolve([]),
  ]);
  // Every document the day tokens find holds one of the days: their scores are not compared, as
  // one token's score says nothing more (and shortly after a write the embedded engine scores
  // indexed and not yet indexed rows with different statistics).
  const dated = [...new Set(dayHits.map((h) => h.documentId))];
  const routed = withDays(
    routedDocuments(documentHits, routing),
    dated.length > routing.maxDocuments ? [] : dated,
  );
  const [routedBm25, routedVector] = routed.length
    ? await Promise.all([
        legs.bm25({ ...q, documentIds: routed }, depth),
        legs.vector({ ...vq, documentIds: routed }, depth),
      ])
    : [[], []];
  const similarity = new Map([...vector, ...routedVector].map((h) => [h.chunk.id, h.score]));
  const vectorWeight = q.fusion?.vectorWeight ?? 1;
  const fused =
    (q.fusion?.method ?? DEFAULT_FUSION_METHOD) === 'rrf'
      ? reciprocalRankFusion(
          [
            { items: bm25 },
            { items: vector, weight: vectorWeight },
            { items: routedBm25, weight: routing.weight },
            { items: routedVector, weight: routing.weight * vectorWeight },
          ],
          (h) => h.chunk.id,
          { k: q.fusion?.k ?? RRF_K },
        )
      : convexFusion(
          [
            { lists: [bm25, routedBm25].map(asScored) },
            { lists: [vector, routedVector].map(asScored), weight: vectorWeight },
          ],
          (h) => h.chunk.id,
          // the routed documents' chunks weigh (1 + routing weight) times, as their RRF
          // contributions count twice with the default weight of 1
          { boost: routed.length ? routedBoost(new Set(routed), routing.weight) : undefined },
        );
  const ordered = q.diversity
    ? diversify(fused, (f) => f.item.chunk.documentId, q.diversity.perDocument)
    : fused;
  return ordered.slice(0, q.limit).map((f) => ({
    chunk: f.item.chunk,
    score: f.score,
    bm25Rank: f.ranks[0],
    vectorRank: f.ranks[1],
    similarity: similarity.get(f.item.chunk.id),
  }));
}
