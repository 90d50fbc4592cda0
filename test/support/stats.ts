/**
 * The p-th percentile of ascending `sorted` by the nearest-rank rule (the smallest value with at
 * least p% of the values at or below it); NaN when there are none. One rule for every benchmark
 * and the soak test, so their p50 / p95 figures compare.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
