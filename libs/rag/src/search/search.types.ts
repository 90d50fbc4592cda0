import type { PassageSource } from '../ask/ask.types';

/** Bounds and defaults of /search input; the DTO and docs/ask.md use these. */
export const SEARCH_LIMITS = {
  queryMaxChars: 4000,
  limit: { min: 1, max: 50, default: 10 },
} as const;

/** A validated /search request (docset names and the similarity cut-off as /ask takes them). */
export interface SearchCommand {
  query: string;
  docSetNames: string[];
  limit: number;
  minimumSimilarityScore: number;
}

/** One retrieved passage: its text and source (as an /ask citation shows it), and its score. */
export interface SearchResult extends PassageSource {
  text: string;
  docSetName: string;
  documentId: string;
  /** Ranking score: the reranker's relevance when one is configured, else the fused search score. */
  score: number;
}

export interface SearchResponse {
  /** In ranking order, best first. */
  results: SearchResult[];
}
