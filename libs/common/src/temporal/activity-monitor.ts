/**
 * What this process's Temporal worker is doing, for health: when an activity last started,
 * reported progress or finished. The worker's interceptor records starts and ends, activity bodies
 * record progress (their progress heartbeats, not liveness ones). One instance per process
 * (`activityMonitor`), like `docqaMetrics`; the API's health check reads it when the worker runs in
 * the same process (embedded mode, tests).
 */
export interface ActivityMonitorSnapshot {
  /** Task queues a worker of this process polls. */
  taskQueues: string[];
  running: number;
  /** Milliseconds since any activity started, progressed or finished; null if none ever did. */
  sinceProgressMs: number | null;
  /** The running activity that has gone longest without progress, if any. */
  quietest?: { activityType: string; workflowId: string; quietMs: number };
}

interface Running {
  activityType: string;
  workflowId: string;
  lastProgressAt: number;
}

export class ActivityMonitor {
  private readonly running = new Map<object, Running>();
  private readonly queues = new Set<string>();
  private lastProgressAt?: number;

  constructor(private readonly now: () => number = Date.now) {}

  attach(taskQueue: string): void {
    this.queues.add(taskQueue);
  }

  detach(taskQueue: string): void {
    this.queues.delete(taskQueue);
  }

  polls(taskQueue: string): boolean {
    return this.queues.has(taskQueue);
  }

  /** `key` identifies the execution (its activity Context). */
  started(key: object, activityType: string, workflowId: string): void {
    const at = this.now();
    this.running.set(key, { activityType, workflowId, lastProgressAt: at });
    this.lastProgressAt = at;
  }

  progressed(key: object): void {
    const at = this.now();
    const r = this.running.get(key);
    if (r) r.lastProgressAt = at;
    this.lastProgressAt = at;
  }

  finished(key: object): void {
    this.running.delete(key);
    this.lastProgressAt = this.now();
  }

  snapshot(): ActivityMonitorSnapshot {
    const now = this.now();
    let quietest: ActivityMonitorSnapshot['quietest'];
    for (const r of this.running.values()) {
      const quietMs = now - r.lastProgressAt;
      if (!quietest || quietMs > quietest.quietMs)
        quietest = { activityType: r.activityType, workflowId: r.workflowId, quietMs };
    }
    return {
      taskQueues: [...this.queues],
      running: this.running.size,
      sinceProgressMs: this.lastProgressAt === undefined ? null : now - this.lastProgressAt,
      ...(quietest ? { quietest } : {}),
    };
  }

  /** Activities still running, for the shutdown log (type and workflow id, no payloads). */
  describeRunning(): string[] {
    return [...this.running.values()].map((r) => `${r.activityType} (${r.workflowId})`);
  }
}

export const activityMonitor = new ActivityMonitor();
