/* Variables that evaluations and benchmarks hand to the product they start, so a run uses the
 * operator's choice. The embedder's tuning (sessions, threads, batch) is not a setting:
 * libs/answers/src/tuning.ts. */

import { DEFAULT_LOCAL_EMBEDDER } from '@docqa/embeddings';

/** The local embedder and its graph (libs/common config: LOCAL_EMBEDDER, LOCAL_EMBEDDER_PRECISION). */
export const EMBEDDER_TUNING_VARS = ['LOCAL_EMBEDDER', 'LOCAL_EMBEDDER_PRECISION'] as const;

/**
 * EMBEDDER_TUNING_VARS as the run sets them, LOCAL_EMBEDDER defaulting to the product's default
 * model, named (a missing model fails the run instead of falling back): evaluations and benchmarks
 * measure what a new install runs. The test suites keep MiniLM (test/support/app.ts).
 */
export function productEmbedderEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { LOCAL_EMBEDDER: DEFAULT_LOCAL_EMBEDDER, ...passEnv(EMBEDDER_TUNING_VARS, from) };
}

/** The variables of `names` that are set (non-empty) in `from`, by name. */
export function passEnv(
  names: readonly string[],
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = from[name];
    if (value) out[name] = value;
  }
  return out;
}
