import type { EmbeddingSpace } from '@docqa/common';

/** Port of the embedding model. Bound by EmbeddingsModule: Cohere when COHERE_API_KEY is set, else local. */
export const EMBEDDER = Symbol('EMBEDDER');

export interface EmbedOptions {
  /** Aborting stops the work between batches and rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface Embedder extends EmbeddingSpace {
  /**
   * Weight of the vector leg in hybrid fusion, convex or RRF (BM25 has 1): 1 for semantic models;
   * lower for the lexical local embedder, whose leg mostly repeats BM25 (docs/benchmarks/search.md).
   */
  readonly recommendedVectorWeight: number;
  /**
   * Set when this embedder stands in for the one the configuration prefers (the local model is
   * not installed): what is missing and how to install it. Logged at start and shown in /version.
   */
  readonly warning?: string;
  /**
   * Vectors for chunks to be indexed, in input order (search_document in Cohere's terms). An
   * aborted `signal` (a cancelled indexing activity) stops the work where the model allows it.
   */
  embedDocuments(texts: string[], o?: EmbedOptions): Promise<number[][]>;
  /** Vector for a search query (search_query), in the same space as the documents. */
  embedQuery(text: string, o?: EmbedOptions): Promise<number[]>;
  /** Releases the model (threads, native memory). */
  close?(): Promise<void>;
}
