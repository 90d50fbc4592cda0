/* Tuning variables that evaluations and benchmarks hand to the product they start, so a setting can
 * be measured against its default without editing the harness. */

/** The local embedder and its tuning (libs/common config: LOCAL_EMBEDDER*). */
export const EMBEDDER_TUNING_VARS = [
  'LOCAL_EMBEDDER',
  'LOCAL_EMBEDDER_PRECISION',
  'LOCAL_EMBEDDER_BATCH_SIZE',
  'LOCAL_EMBEDDER_SESSIONS',
  'LOCAL_EMBEDDER_THREADS',
] as const;

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
