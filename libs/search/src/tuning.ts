import type { FusionMethod } from './search.port';

/*
 * Values benchmarks chose for the search engines. They are not settings: each comment says where
 * its value was measured.
 */

/**
 * How hybrid search fuses BM25 and vector results: min-max normalised scores averaged with the
 * embedder's vector weight. It ranked better than reciprocal rank on both engines
 * (docs/adr/0030-convex-fusion.md, docs/benchmarks/search.md).
 */
export const SEARCH_FUSION: FusionMethod = 'convex';

/**
 * Embedded engine: memory its caches may hold, in MiB (briefly up to about 1.5x). The engine's own
 * default (7 GiB) grew the process about 100 MB per 1,000 writes
 * (docs/adr/0027-embedded-engine-writes-and-maintenance.md).
 */
export const SEARCH_EMBEDDED_CACHE_MB = 256;

/**
 * Embedded engine: after each maintenance run give freed memory back to the system (glibc's
 * malloc_trim, 16 ms; peak 0.89x) (docs/adr/0034-glibc-trim-after-maintenance.md).
 */
export const SEARCH_EMBEDDED_RELEASE_MEMORY = true;
