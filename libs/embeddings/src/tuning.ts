/*
 * Values benchmarks chose for the local embedder. They are not settings: the comment says where
 * they were measured. `ModelsConfig` fields that override one exist for tests only.
 */

/**
 * Local embedder: 2 onnxruntime sessions of 1 thread each, batches of 2 chunks: the fastest on
 * 2 cores, and a query waits behind ~35 ms (docs/adr/0013-embedder-runtime.md,
 * docs/benchmarks/embedder.md).
 */
export const LOCAL_EMBEDDER_SESSIONS = 2;
export const LOCAL_EMBEDDER_THREADS = 1;
export const LOCAL_EMBEDDER_BATCH_SIZE = 2;
