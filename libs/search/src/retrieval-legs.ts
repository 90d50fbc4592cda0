import {
  dateTokens,
  onStatement,
  STATEMENT_LABEL,
  type StatementKind,
  statementsAsked,
  statePostalCodes,
  withPeriodTerms,
} from '@docqa/text';
import { convexFusion, DEFAULT_FUSION_METHOD, reciprocalRankFusion, RRF_K } from './fusion';
import {
  DEFAULT_ROUTING,
  diversify,
  DocumentHit,
  latestDocuments,
  namingWords,
  routedDocuments,
  type RoutingOptions,
  withDays,
} from './routing';
import type { SearchHit, SearchQuery, StoredChunk } from './search.port';

/** A hit of one retrieval leg, best first. */
export interface LegHit {
  chunk: StoredChunk;
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
            (await documents(q, size)).map((h) => ({ ...h, score: roundedScore(h.score) })),
        }
      : {}),
  };
}

/** Documents the routing leg looks at. */
const ROUTING_DEPTH = 50;

/**
 * The documents the query's context match routes to; when it comes close to too many of them, those
 * its naming words alone route to (namingWords), with one more read of the documents leg.
 */
async function routedByContext(
  q: LegQuery,
  documentHits: DocumentHit[],
  legs: RetrievalLegs,
  routing: RoutingOptions,
): Promise<string[]> {
  const routed = routedDocuments(documentHits, routing);
  if (routed.length > 0 || !(documentHits[0]?.score > 0) || !legs.documents) return routed;
  const names = namingWords(q.text);
  return names ? routedDocuments(await legs.documents({ ...q, text: names }, ROUTING_DEPTH), routing) : [];
}

/** Length of a day's token (`20071208`; a month's is `200712`). */
const DAY_TOKEN_LENGTH = 8;

const asScored = (hits: LegHit[]) => hits.map((h) => ({ item: h, score: h.score }));

const routedBoost = (routed: Set<string>, weight: number) => (h: LegHit) =>
  routed.has(h.chunk.documentId) ? 1 + weight : 1;

/**
 * How much more a chunk of a statement the question names weighs in the fusion (1: twice).
 * Chosen on the FinanceBench development half (docs/adr/0105).
 */
const STATEMENT_WEIGHT = 1;

const statementBoost = (kinds: readonly StatementKind[]) => (h: LegHit) =>
  onStatement(h.chunk.section, kinds) ? 1 + STATEMENT_WEIGHT : 1;

/** The product of the boosts given. */
function boost(...fs: Array<((h: LegHit) => number) | undefined>): ((h: LegHit) => number) | undefined {
  const given = fs.filter((f): f is (h: LegHit) => number => !!f);
  return given.length ? (h) => given.reduce((p, f) => p * f(h), 1) : undefined;
}

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
  const routed =
    latestDocuments(q.text, documentHits, routing) ??
    withDays(
      await routedByContext(q, documentHits, legs, routing),
      dated.length > routing.maxDocuments ? [] : dated,
    );
  // A question that names a financial statement ("... shown in the cash flow statement") gets
  // that statement's pages (labelled at indexing, libs/text statements.ts) of the routed
  // documents as candidates, and they weigh more in the fusion.
  const statements = statementsAsked(q.text);
  const [routedBm25, routedVector, statementHits] = await Promise.all([
    routed.length ? legs.bm25({ ...q, documentIds: routed }, depth) : Promise.resolve([]),
    routed.length ? legs.vector({ ...vq, documentIds: routed }, depth) : Promise.resolve([]),
    statements.length
      ? legs.bm25(
          {
            ...q,
            text: statements.map((k) => STATEMENT_LABEL[k]).join(' '),
            documentIds: routed.length ? routed : q.documentIds,
          },
          depth,
        )
      : Promise.resolve([]),
  ]);
  // Every page of a named statement counts alike here (the name's score says nothing about which
  // page answers); the question's own legs and routing rank them among themselves.
  const statementPages = statementHits
    .filter((h) => onStatement(h.chunk.section, statements))
    .map((h) => ({ ...h, score: 1 }));
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
            { items: statementPages, weight: STATEMENT_WEIGHT },
          ],
          (h) => h.chunk.id,
          { k: q.fusion?.k ?? RRF_K },
        )
      : convexFusion(
          [
            { lists: [bm25, routedBm25].map(asScored) },
            { lists: [vector, routedVector].map(asScored), weight: vectorWeight },
            // their own kind: the name's BM25 scores are not on the question's scale
            ...(statementPages.length
              ? [{ lists: [asScored(statementPages)], weight: STATEMENT_WEIGHT }]
              : []),
          ],
          (h) => h.chunk.id,
          // the routed documents' chunks weigh (1 + routing weight) times, as their RRF
          // contributions count twice with the default weight of 1
          {
            boost: boost(
              routed.length ? routedBoost(new Set(routed), routing.weight) : undefined,
              statementPages.length ? statementBoost(statements) : undefined,
            ),
          },
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
