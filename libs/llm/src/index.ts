export * from './embeddings/embedder.port';
export * from './embeddings/local-hashing.embedder';
export * from './embeddings/cohere.embedder';
export * from './llm.module';
