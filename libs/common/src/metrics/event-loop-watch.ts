import { performance } from 'node:perf_hooks';

/** One span in which the event loop ran no timer for longer than the threshold. */
export interface EventLoopStall {
  /** Wall time between the timer's due time and when it ran. */
  ms: number;
  /**
   * Share of that span the event loop spent running code (0..1), from
   * `performance.eventLoopUtilization`: near 1, this thread held it (a long synchronous call:
   * WASM, a JSON parse, a regex); near 0, it waited for the OS to run it (the cores were taken).
   */
  busy: number;
}

export interface EventLoopWatch {
  stop(): void;
}

/**
 * Calls `onStall` for every span of more than `thresholdMs` in which this thread's event loop
 * answered nothing (no request, no heartbeat, no log line). A timer every `tickMs` measures how
 * late it runs; the loop's utilisation over the same span says whose fault it was. The timer is
 * unref'd, so the watch never keeps a process alive.
 */
export function watchEventLoop(
  thresholdMs: number,
  onStall: (stall: EventLoopStall) => void,
  tickMs = 100,
): EventLoopWatch {
  let due = performance.now() + tickMs;
  let elu = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - due;
    const spanElu = performance.eventLoopUtilization(elu);
    elu = performance.eventLoopUtilization();
    due = now + tickMs;
    if (late > thresholdMs) onStall({ ms: Math.round(late), busy: spanElu.utilization });
  }, tickMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
