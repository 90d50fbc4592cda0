/**
 * The vector space chunk embeddings live in: the embedder that produced them and their length.
 * Provided by EmbeddingsModule (from the configured embedder) and read by SearchModule, which keeps
 * one index version per space so vectors of two models are never mixed. It lives in common because
 * search and embeddings are siblings in the import graph.
 */
export const EMBEDDING_SPACE = Symbol('EMBEDDING_SPACE');

export interface EmbeddingSpace {
  /** Model identifier, e.g. `embed-english-v3.0` or `local-hash-v1`. */
  modelName: string;
  dimensions: number;
}

/** How documents.embedding_space records a space: `<model>:<dimensions>`. */
export function embeddingSpaceKey(space: EmbeddingSpace): string {
  return `${space.modelName}:${space.dimensions}`;
}
