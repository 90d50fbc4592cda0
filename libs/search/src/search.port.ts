/** Port of the chunk index. Adapters: Elasticsearch (production) and the embedded engine. */
export const SEARCH_INDEX = Symbol('SEARCH_INDEX');

export type SearchEngineName = 'elasticsearch' | 'embedded';

export type ProbeStatus = 'up' | 'down';

export interface EngineHealth {
  engine: SearchEngineName;
  /** Both probes answered within their deadline. */
  up: boolean;
  /** A real read (a filtered query) answered within the deadline. */
  read: ProbeStatus;
  /** A write could proceed within its deadline (see each adapter's `health`). */
  write: ProbeStatus;
  /** Operator detail (index name, what failed); never shown without a credential. */
  detail?: string;
}

/** Options of one write: a cancelled caller (an activity) stops waiting at once. */
export interface WriteOptions {
  signal?: AbortSignal;
}

/**
 * Deadlines of engine calls (SEARCH_*_TIMEOUT_MS). A call past its deadline rejects with
 * DomainError DEPENDENCY_UNAVAILABLE (retryable for activities, 503 for the API); the engine call
 * itself may still be running, and the embedded engine keeps its write lock until it ends.
 */
export interface SearchDeadlines {
  readMs: number;
  writeMs: number;
  /** Embedded engine: wait for the write lock. */
  lockMs: number;
  /** Embedded engine: index maintenance. */
  maintenanceMs: number;
}

export const DEFAULT_SEARCH_DEADLINES: SearchDeadlines = {
  readMs: 10_000,
  writeMs: 120_000,
  lockMs: 60_000,
  maintenanceMs: 600_000,
};

/** One indexed chunk of a document page. */
export interface ChunkRecord {
  /** The account's id (the engines store it as a string; see the adapters). */
  accountId: number;
  docSetName: string;
  documentId: string;
  fileName: string;
  /** 1-based physical page number, as a string (the spec's citation field type). */
  pageNumber: string;
  /** `S3`, `SHAREPOINT` or `GOOGLEDRIVE`. */
  sourceType: string;
  /** Identifier of the file in its source (key, item id, file id). */
  sourceId: string;
  /** Position of the chunk in its document, 0-based; with documentId it makes the chunk id. */
  chunkIndex: number;
  text: string;
  /**
   * The document's title and file name words, the same on every chunk of a document (indexing's
   * document context). Searched, boosted; never part of a citation.
   */
  documentTitle?: string;
  /** What identifies the document throughout its body: proper names, identifiers, date tokens. */
  documentTerms?: string;
  /** The section heading(s) the chunk falls under. */
  section?: string;
  /** Vector from the configured embedder; its length must equal the index's dimensions. */
  embedding: number[];
  /**
   * Version of the document's chunks (default 0). Part of the chunk id only, never a stored field:
   * a re-index writes the next generation beside the served one and retires the old one with
   * `deleteChunks` once the new one is complete (per-document swap).
   */
  generation?: number;
}

/** A chunk as returned by search (no embedding). */
export type StoredChunk = Omit<ChunkRecord, 'embedding' | 'generation'> & { id: string };

export type SearchMode = 'hybrid' | 'bm25' | 'vector';

/** How hybrid search fuses its legs: `convex` (the default) or `rrf` (fusion.ts). */
export type FusionMethod = 'convex' | 'rrf';

export interface SearchQuery {
  accountId: number;
  /** Only chunks of these docsets (of this account) are searched. Empty means no results. */
  docSetNames: string[];
  /** Query text for the BM25 leg. */
  text: string;
  /** Query vector for the kNN leg (the embedder's embedQuery). Without it, hybrid is BM25 only. */
  vector?: number[];
  /** Number of hits returned, 1-1000. */
  limit: number;
  /** Vector-leg cut-off on cosine similarity (-1..1); hits of the kNN leg below it are dropped. */
  minimumSimilarityScore: number;
  /** Default `hybrid`: BM25 and kNN fused (`fusion.method`). */
  mode?: SearchMode;
  /**
   * Fusion of the hybrid legs: `method` (default `convex`: normalised scores combined; `rrf`:
   * reciprocal rank fusion with rank constant `k`, default 60) and the weight of the kNN leg
   * (default 1, the BM25 leg has 1). Callers pass the embedder's `recommendedVectorWeight`.
   */
  fusion?: { method?: FusionMethod; k?: number; vectorWeight?: number };
  /**
   * Document routing (hybrid mode): documents whose context (title, identifying terms) matches
   * the query clearly better than the rest get extra BM25 and kNN legs restricted to them. Tuning
   * only; the defaults (`DEFAULT_ROUTING`) apply when absent, `weight: 0` turns it off.
   */
  routing?: Partial<{ weight: number; share: number; maxDocuments: number }>;
  /** Boosts of the context fields in the BM25 leg (tuning; defaults `DEFAULT_FIELD_BOOSTS`). */
  fieldBoosts?: Partial<{ section: number; documentTitle: number; documentTerms: number }>;
  /**
   * Diversity across documents: at most `perDocument` chunks of one document before chunks of
   * others (hybrid mode). For questions that list or compare several documents.
   */
  diversity?: { perDocument: number };
}

export interface ChunksByIdQuery {
  accountId: number;
  docSetNames: string[];
  ids: string[];
}

/** chunksAndTerms: chunks by id and terms whose presence in the docsets is probed. */
export interface ChunksAndTermsQuery extends ChunksByIdQuery {
  terms: string[];
}

export interface ChunksAndTerms {
  chunks: StoredChunk[];
  /** `termsFound[i]`: a BM25 search of `terms[i]` alone finds a chunk of the docsets. */
  termsFound: boolean[];
}

/** Terms one chunksAndTerms call probes. */
export const TERM_PROBES_MAX = 20;

/** Ids one chunksAndTerms call reads. */
export const CHUNKS_BY_ID_MAX = 100;

/** The ids' check of chunksAndTerms, shared by the adapters. */
export function checkChunksById(q: ChunksByIdQuery): void {
  if (q.ids.length > CHUNKS_BY_ID_MAX)
    throw new RangeError(`chunksAndTerms reads at most ${CHUNKS_BY_ID_MAX} ids (${q.ids.length} given)`);
}

/** The search chunksAndTerms runs for one term: BM25 alone, one hit. */
export function termProbe(
  q: Pick<ChunksAndTermsQuery, 'accountId' | 'docSetNames'>,
  term: string,
): SearchQuery {
  return {
    accountId: q.accountId,
    docSetNames: q.docSetNames,
    text: term,
    limit: 1,
    minimumSimilarityScore: 0,
    mode: 'bm25',
  };
}

/** chunksAndTerms's argument check, shared by the adapters. */
export function checkChunksAndTerms(q: ChunksAndTermsQuery): void {
  checkChunksById(q);
  if (q.terms.length > TERM_PROBES_MAX)
    throw new RangeError(`chunksAndTerms probes at most ${TERM_PROBES_MAX} terms (${q.terms.length} given)`);
}

/**
 * The chunk after `chunk` in its document (same generation), or undefined for a chunk id this
 * module did not make. Ids are `{documentId}:{chunkIndex}` or `{documentId}:{generation}:{chunkIndex}`.
 */
export function nextChunkId(
  chunk: Pick<StoredChunk, 'id' | 'documentId' | 'chunkIndex'>,
): string | undefined {
  return adjacentChunkId(chunk, 1);
}

/** The chunk before `chunk` in its document (same generation); undefined for the first or a foreign id. */
export function previousChunkId(
  chunk: Pick<StoredChunk, 'id' | 'documentId' | 'chunkIndex'>,
): string | undefined {
  return adjacentChunkId(chunk, -1);
}

function adjacentChunkId(
  chunk: Pick<StoredChunk, 'id' | 'documentId' | 'chunkIndex'>,
  step: 1 | -1,
): string | undefined {
  const index = chunk.chunkIndex + step;
  if (index < 0) return undefined;
  const prefix = `${chunk.documentId}:`;
  if (!chunk.id.startsWith(prefix)) return undefined;
  const parts = chunk.id.slice(prefix.length).split(':');
  if (parts[parts.length - 1] !== String(chunk.chunkIndex)) return undefined;
  if (parts.length === 1) return chunkId(chunk.documentId, index);
  const generation = Number(parts[0]);
  if (parts.length !== 2 || !Number.isInteger(generation) || generation < 1) return undefined;
  return chunkId(chunk.documentId, index, generation);
}

export interface SearchHit {
  chunk: StoredChunk;
  /** Ranking score: the fused score in hybrid mode, the leg's own score otherwise. */
  score: number;
  /** 1-based rank in the BM25 leg, when the chunk came from it. */
  bm25Rank?: number;
  /** 1-based rank in the kNN leg, when the chunk came from it. */
  vectorRank?: number;
  /** Cosine similarity to the query vector, when the chunk came from the kNN leg. */
  similarity?: number;
}

export interface SearchIndexStats {
  engine: SearchEngineName;
  /** Physical index (ES index or embedded table) behind the alias. */
  indexName: string;
  indexVersion: number;
  embeddingModel: string;
  dimensions: number;
  /** Chunk count, for the account when one was given, else for the whole index. */
  chunks: number;
}

export interface UpsertResult {
  indexed: number;
}

/**
 * Chunk id: deterministic, so a retried write overwrites instead of adding. Generation 0 keeps the
 * original `{documentId}:{chunkIndex}` form (chunks indexed before generations existed).
 */
export function chunkId(documentId: string, chunkIndex: number, generation = 0): string {
  return generation ? `${documentId}:${generation}:${chunkIndex}` : `${documentId}:${chunkIndex}`;
}

/** Ids of chunks 0..chunkCount-1 of one generation of a document. */
export function generationChunkIds(documentId: string, generation: number, chunkCount: number): string[] {
  return Array.from({ length: chunkCount }, (_, i) => chunkId(documentId, i, generation));
}

/** Chunk ids per delete request: bounds the request body (ES ids query, LanceDB predicate). */
export const CHUNK_DELETE_BATCH = 1000;

/**
 * deleteChunks of both engines: the ids of one generation, deleted in batches of
 * CHUNK_DELETE_BATCH by the engine's `deleteIds`; resolves to the number deleted.
 */
export async function deleteGenerationInBatches(
  documentId: string,
  generation: number,
  chunkCount: number,
  deleteIds: (ids: string[]) => Promise<number>,
): Promise<number> {
  const ids = generationChunkIds(documentId, generation, chunkCount);
  let deleted = 0;
  for (let i = 0; i < ids.length; i += CHUNK_DELETE_BATCH)
    deleted += await deleteIds(ids.slice(i, i + CHUNK_DELETE_BATCH));
  return deleted;
}

export interface SearchIndex {
  readonly engine: SearchEngineName;
  /**
   * Writes chunks (insert or replace by chunk id). Visible to search when the promise resolves.
   * Rejects with PartialIndexingError (listing every failed chunk) when some chunks were refused;
   * the others are written, and a retry is safe because ids are deterministic.
   */
  upsert(chunks: ChunkRecord[], o?: WriteOptions): Promise<UpsertResult>;
  /** Deletes every chunk of one document of the account; resolves to the number deleted. */
  deleteByDocument(accountId: number, documentId: string, o?: WriteOptions): Promise<number>;
  /**
   * Deletes chunks 0..chunkCount-1 of one generation of a document of the account (the other
   * generations stay); resolves to the number deleted.
   */
  deleteChunks(
    accountId: number,
    documentId: string,
    generation: number,
    chunkCount: number,
    o?: WriteOptions,
  ): Promise<number>;
  deleteByDocSet(accountId: number, docSetName: string, o?: WriteOptions): Promise<number>;
  deleteByAccount(accountId: number, o?: WriteOptions): Promise<number>;
  /** Hits of the account's docsets only, best first. */
  search(query: SearchQuery): Promise<SearchHit[]>;
  /**
   * One read for what an answer needs around its passages: the chunks of `ids` (at most
   * CHUNKS_BY_ID_MAX, of the account's named docsets only; an id not stored there is left out, and
   * the order is not kept) and, for each term (at most TERM_PROBES_MAX), whether
   * `search({ text: term, mode: 'bm25', limit: 1, minimumSimilarityScore: 0 })` would find a chunk
   * of the account's named docsets. One deadline for the whole read.
   */
  chunksAndTerms(q: ChunksAndTermsQuery): Promise<ChunksAndTerms>;
  stats(accountId?: number): Promise<SearchIndexStats>;
  /**
   * Read and write probes used by /health, each bounded by `timeoutMs` (default 3 s). Never
   * throws; a probe still running from an earlier call counts as down.
   */
  health(o?: { timeoutMs?: number }): Promise<EngineHealth>;
  /**
   * Releases connections and file handles within `timeoutMs` (default 10 s); rejects, naming
   * what is still running, when the engine does not let go in time (shutdown logs it).
   */
  close(o?: { timeoutMs?: number }): Promise<void>;
}
