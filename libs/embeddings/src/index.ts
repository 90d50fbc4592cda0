export * from './embedder.port';
export * from './local-hashing.embedder';
export * from './cohere.embedder';
export * from './onnx/onnx.embedder';
export * from './onnx/local-model';
export * from './onnx/local-embedder.factory';
export * from './onnx/precision';
export * from './embeddings.module';
