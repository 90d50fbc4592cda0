import koffi from 'koffi';

/** mallopt's parameter for the mmap threshold (glibc's malloc.h). */
const M_MMAP_THRESHOLD = -3;

/** The threshold the product fixes: blocks of 1 MiB and more get their own mapping. */
export const DEFAULT_MMAP_THRESHOLD_BYTES = 1 << 20;

export interface AllocatorTuning {
  /** Whether this call (or an earlier one in this process) fixed the threshold. */
  applied: boolean;
  /** For the startup log: what was done, or why not. */
  detail: string;
}

let done: AllocatorTuning | undefined;

/**
 * Fixes glibc's mmap threshold for the whole process (native engines included), once.
 *
 * glibc raises the threshold each time a mapped block is freed, up to 32 MiB; from then on the
 * embedded search engine's multi-MiB buffers come from the per-thread arenas, whose freed space
 * is seldom given back: 20,000 one-chunk writes grew the process from 265 to about 725 MB, and a
 * 10,000-file library peaked at 1,825 MB. A fixed threshold (mallopt also stops the raising) maps
 * those buffers and unmaps them when freed: about 415 MB and 1,487 MB, for no measurable CPU in
 * the product (docs/benchmarks/sharepoint.md, 2026-11-27). glibc reads MALLOC_MMAP_THRESHOLD_ at
 * process start only, so the product calls mallopt itself; an operator who sets that variable (or a
 * GLIBC_TUNABLES mmap threshold) keeps it. Not Linux, or not glibc (musl): nothing to do.
 */
export function fixNativeMmapThreshold(
  bytes = DEFAULT_MMAP_THRESHOLD_BYTES,
  env: NodeJS.ProcessEnv = process.env,
): AllocatorTuning {
  if (done) return done;
  if (process.platform !== 'linux')
    return (done = { applied: false, detail: `left as is (${process.platform})` });
  if (env.MALLOC_MMAP_THRESHOLD_ !== undefined || /mmap_threshold/.test(env.GLIBC_TUNABLES ?? ''))
    return (done = {
      applied: false,
      detail: 'mmap threshold left to the environment (MALLOC_MMAP_THRESHOLD_ or GLIBC_TUNABLES)',
    });
  let mallopt: (param: number, value: number) => number;
  try {
    mallopt = koffi.load('libc.so.6').func('int mallopt(int param, int value)');
  } catch {
    return (done = { applied: false, detail: 'left as is (no glibc)' });
  }
  if (mallopt(M_MMAP_THRESHOLD, bytes) !== 1)
    return (done = {
      applied: false,
      detail: `left as is (glibc refused an mmap threshold of ${bytes} bytes)`,
    });
  return (done = { applied: true, detail: `mmap threshold fixed at ${bytes / 2 ** 20} MiB` });
}
