import type { EmbeddingSpace } from '@docqa/common';

/** Port of the embedding model. Bound by LlmModule: Cohere when COHERE_API_KEY is set, else local. */
export const EMBEDDER = Symbol('EMBEDDER');

export interface Embedder extends EmbeddingSpace {
  /** Vectors for chunks to be indexed, in input order (search_document in Cohere's terms). */
  embedDocuments(texts: string[]): Promise<number[][]>;
  /** Vector for a search query (search_query), in the same space as the documents. */
  embedQuery(text: string): Promise<number[]>;
}
