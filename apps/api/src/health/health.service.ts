import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Connection } from '@temporalio/client';
import { DataSource } from 'typeorm';
import {
  activityMonitor,
  APP_CONFIG,
  AppConfig,
  MetricsService,
  TEMPORAL_CONNECTION,
  withDeadline,
} from '@docqa/common';
import { SEARCH_INDEX, SearchIndex } from '@docqa/search';

export type PartName = 'postgres' | 'temporal' | 'search' | 'indexing';

/** One part's check, with the details only the operator's view shows. */
export interface DependencyCheck {
  status: 'up' | 'down';
  latencyMs: number;
  engine?: string;
  detail?: string;
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: Partial<Record<PartName, DependencyCheck>>;
  down: PartName[];
}

/** What a caller without a credential sees: each part up or down, nothing about engines. */
export interface PublicHealthReport {
  status: 'ok' | 'unavailable';
  checks: Partial<Record<PartName, { status: 'up' | 'down' }>>;
  down: PartName[];
}

/** Temporal enums (temporal.api.enums.v1), by value. */
const TASK_QUEUE_KIND_NORMAL = 1;
const TASK_QUEUE_TYPE_ACTIVITY = 2;

function durationMs(d?: { seconds?: unknown; nanos?: number | null } | null): number {
  if (!d) return 0;
  return Number(d.seconds ?? 0) * 1000 + Math.round((d.nanos ?? 0) / 1e6);
}

/**
 * Deadline of each dependency probe of /health and /health/ready; a probe past it reports its part
 * down (docs/adr/0009-bounded-waits-and-truthful-health.md, docs/operations.md).
 */
export const HEALTH_CHECK_TIMEOUT_MS = 3_000;

/**
 * Health reports `indexing` down when activities waited this long to start while none progressed:
 * the worker is wedged (docs/adr/0009-bounded-waits-and-truthful-health.md, docs/operations.md).
 */
export const INDEXING_STALL_AFTER_MS = 120_000;

@Injectable()
export class HealthService implements OnModuleInit, OnModuleDestroy {
  private readonly timeoutMs: number;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(TEMPORAL_CONNECTION) private readonly temporal: Connection,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    this.timeoutMs = HEALTH_CHECK_TIMEOUT_MS;
  }

  /** The full report (engine names, probe failures, backlog) goes to the metrics port only. */
  onModuleInit(): void {
    this.metrics.setHealthReporter(async () => {
      const report = await this.check();
      return { status: report.status === 'ok' ? 200 : 503, body: report };
    });
  }

  onModuleDestroy(): void {
    this.metrics.setHealthReporter(undefined);
  }

  /** Runs `fn` within the check deadline; a probe past it, or failing, reports its part down. */
  private async timed(fn: () => Promise<Omit<DependencyCheck, 'latencyMs'>>): Promise<DependencyCheck> {
    const t0 = Date.now();
    try {
      const r = await withDeadline(fn(), this.timeoutMs, 'health check');
      return { ...r, latencyMs: Date.now() - t0 };
    } catch (err) {
      const timedOut = (err as Error)?.name === 'DeadlineExceededError';
      return {
        status: 'down',
        detail: timedOut ? `no answer within ${this.timeoutMs} ms` : 'unreachable',
        latencyMs: Date.now() - t0,
      };
    }
  }

  /** Postgres answers `SELECT 1` within the check timeout. */
  checkPostgres(): Promise<DependencyCheck> {
    return this.timed(async () => {
      await this.db.query('SELECT 1');
      return { status: 'up' };
    });
  }

  checkTemporal(): Promise<DependencyCheck> {
    return this.timed(async () => {
      // A deadline bounds the SDK's own gRPC retries, so no retry outlives the check.
      const r = await this.temporal.withDeadline(Date.now() + this.timeoutMs - 500, () =>
        this.temporal.healthService.check({}),
      );
      return { status: r.status === 1 /* SERVING */ ? 'up' : 'down' };
    });
  }

  /** A real read and a write probe of the search engine, each within the check deadline. */
  checkSearch(): Promise<DependencyCheck> {
    return this.timed(async () => {
      const h = await this.search.health({ timeoutMs: this.timeoutMs - 100 });
      return {
        status: h.up ? 'up' : 'down',
        engine: h.engine,
        detail: `read ${h.read}, write ${h.write}${h.detail ? `; ${h.detail}` : ''}`,
      };
    });
  }

  /**
   * Indexing is stuck when activity tasks have waited to start longer than INDEXING_STALL_AFTER_MS
   * (Temporal's backlog of the task queue) while no activity progressed in that time: none was
   * dispatched, and, when the worker runs in this process, none started, heartbeated progress or
   * finished. That is what held worker slots look like (issue #13). Temporal unreachable is the
   * `temporal` check's business: indexing is then not judged.
   */
  checkIndexing(): Promise<DependencyCheck> {
    return this.timed(async () => {
      const threshold = INDEXING_STALL_AFTER_MS;
      const queue = this.cfg.temporal.taskQueue;
      let stats;
      try {
        const budget = this.timeoutMs - 500;
        const r = await withDeadline(
          this.temporal.withDeadline(Date.now() + budget, () =>
            this.temporal.workflowService.describeTaskQueue({
              namespace: this.cfg.temporal.namespace,
              taskQueue: { name: queue, kind: TASK_QUEUE_KIND_NORMAL },
              taskQueueType: TASK_QUEUE_TYPE_ACTIVITY,
              reportStats: true,
            }),
          ),
          budget,
          'temporal task queue stats',
        );
        stats = r.stats;
      } catch {
        return { status: 'up', detail: 'not judged: Temporal did not answer' };
      }
      const backlog = Number(stats?.approximateBacklogCount ?? 0);
      const waitedMs = durationMs(stats?.approximateBacklogAge);
      const dispatchRate = Number(stats?.tasksDispatchRate ?? 0);
      const local = activityMonitor.polls(queue) ? activityMonitor.snapshot() : undefined;
      const localProgress = local?.sinceProgressMs != null && local.sinceProgressMs < threshold;
      const stalled = backlog > 0 && waitedMs > threshold && dispatchRate === 0 && !localProgress;
      const parts = [
        `${backlog} activity task(s) waiting, oldest ${Math.round(waitedMs / 1000)} s`,
        `dispatch rate ${dispatchRate.toFixed(2)}/s`,
      ];
      if (local) {
        parts.push(
          `worker in this process: ${local.running} running, last progress ` +
            (local.sinceProgressMs === null ? 'never' : `${Math.round(local.sinceProgressMs / 1000)} s ago`),
        );
        if (local.quietest)
          parts.push(
            `quietest ${local.quietest.activityType} (${local.quietest.workflowId}) ${Math.round(local.quietest.quietMs / 1000)} s`,
          );
      }
      return {
        status: stalled ? 'down' : 'up',
        detail: (stalled ? `stalled for over ${Math.round(threshold / 1000)} s: ` : '') + parts.join('; '),
      };
    });
  }

  async check(): Promise<HealthReport> {
    const [postgres, temporal, search, indexing] = await Promise.all([
      this.checkPostgres(),
      this.checkTemporal(),
      this.checkSearch(),
      this.checkIndexing(),
    ]);
    return report({ postgres, temporal, search, indexing });
  }

  /**
   * Readiness: Postgres, the search engine's probes and indexing. Temporal is left out: without
   * it the API still answers questions, and /health names it.
   */
  async ready(): Promise<HealthReport> {
    const [postgres, search, indexing] = await Promise.all([
      this.checkPostgres(),
      this.checkSearch(),
      this.checkIndexing(),
    ]);
    return report({ postgres, search, indexing });
  }
}

function report(checks: HealthReport['checks']): HealthReport {
  const down = (Object.keys(checks) as PartName[]).filter((name) => checks[name]?.status === 'down');
  return { status: down.length ? 'unavailable' : 'ok', checks, down };
}

export function publicView(r: HealthReport): PublicHealthReport {
  const checks: PublicHealthReport['checks'] = {};
  for (const [name, c] of Object.entries(r.checks) as Array<[PartName, DependencyCheck]>)
    checks[name] = { status: c.status };
  return { status: r.status, checks, down: r.down };
}
