import * as os from 'node:os';

/**
 * Fewest threads the embedded engine's compute pool may have. LanceDB's full-text index builder
 * (lance-index 8.0.0, `InnerBuilder::write_posting_lists`) runs its producer on that pool and parks
 * the thread on a bounded channel (`send_blocking`) while the writer draining the channel needs a
 * thread of the same pool to encode pages. With one thread, index maintenance deadlocks as soon as
 * the posting lists fill more than one batch, and every search (which decodes on the pool) hangs
 * behind it (docs/adr/0008). The adapter serialises index builds, so
 * one thread can be parked at a time; four leave room for the writer and concurrent searches.
 */
export const MIN_LANCE_CPU_THREADS = 4;

/** Lance's own default: CPUs minus LANCE_IO_CORE_RESERVATION (default 2), at least 1. */
export function lanceDefaultCpuThreads(env: NodeJS.ProcessEnv, cpus: number): number {
  const reservation = Number(env.LANCE_IO_CORE_RESERVATION ?? 2);
  return cpus > reservation ? cpus - reservation : 1;
}

export interface LanceRuntimeSetting {
  threads: number;
  /** Where the value came from: the operator's LANCE_CPU_THREADS, or set here. */
  source: 'environment' | 'docqa';
}

/**
 * Sizes LanceDB's compute pool before the engine first uses it (it reads LANCE_CPU_THREADS from
 * the process environment once, lazily). An explicit LANCE_CPU_THREADS is kept as the operator's
 * choice. Must run in the real process environment: the embedded adapter calls it when loaded.
 */
export function configureLanceRuntime(
  env: NodeJS.ProcessEnv = process.env,
  cpus = os.availableParallelism(),
): LanceRuntimeSetting {
  const explicit = env.LANCE_CPU_THREADS;
  if (explicit !== undefined && explicit.trim() !== '')
    return { threads: Number(explicit), source: 'environment' };
  const threads = Math.max(MIN_LANCE_CPU_THREADS, lanceDefaultCpuThreads(env, cpus));
  env.LANCE_CPU_THREADS = String(threads);
  return { threads, source: 'docqa' };
}
