/**
 * Nice value of CPU-heavy background threads (embedding, PDF extraction): under the scheduler's
 * weights a nice-0 thread gets about 90 % of a core it shares with a nice-10 one, so the event loop
 * stays responsive during indexing (docs/adr/0036-event-loop-stays-responsive.md).
 */
export const BACKGROUND_NICE = 10;

/**
 * Source for the top of an eval'd worker thread whose `workerData.nice` is its nice value. On Linux
 * the nice value is per thread and inherited by the threads it starts afterwards (onnxruntime's
 * intra-op pool, for one), so this lowers them and not the event loop. Raising it back would need
 * privileges: it is set once, at the start. Where lowering is refused, the thread runs at normal
 * priority.
 */
export const LOWER_THREAD_PRIORITY_SOURCE = `
if (require('node:worker_threads').workerData.nice > 0) {
  try {
    require('node:os').setPriority(require('node:worker_threads').workerData.nice);
  } catch {
    // not permitted here (some containers): normal priority
  }
}
`;
