import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Connection } from '@temporalio/client';
import { DataSource } from 'typeorm';
import { TEMPORAL_CONNECTION } from '@docqa/common';
import { SEARCH_INDEX, SearchIndex } from '@docqa/search';

export interface DependencyCheck {
  status: 'up' | 'down';
  latencyMs: number;
  engine?: string;
  detail?: string;
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: { postgres: DependencyCheck; temporal: DependencyCheck; search: DependencyCheck };
  down: string[];
}

const CHECK_TIMEOUT_MS = 3000;

async function timed(fn: () => Promise<Omit<DependencyCheck, 'latencyMs'>>): Promise<DependencyCheck> {
  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<Omit<DependencyCheck, 'latencyMs'>>((resolve) => {
      timer = setTimeout(() => resolve({ status: 'down', detail: 'timed out' }), CHECK_TIMEOUT_MS);
    });
    const r = await Promise.race([fn(), timeout]);
    return { ...r, latencyMs: Date.now() - t0 };
  } catch {
    return { status: 'down', detail: 'unreachable', latencyMs: Date.now() - t0 };
  } finally {
    clearTimeout(timer);
  }
}

@Injectable()
export class HealthService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(TEMPORAL_CONNECTION) private readonly temporal: Connection,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
  ) {}

  /** Postgres answers `SELECT 1` within the check timeout. */
  checkPostgres(): Promise<DependencyCheck> {
    return timed(async () => {
      await this.db.query('SELECT 1');
      return { status: 'up' };
    });
  }

  async check(): Promise<HealthReport> {
    const [postgres, temporal, search] = await Promise.all([
      this.checkPostgres(),
      timed(async () => {
        // A deadline bounds the SDK's own gRPC retries, so no retry outlives the check.
        const r = await this.temporal.withDeadline(Date.now() + CHECK_TIMEOUT_MS - 500, () =>
          this.temporal.healthService.check({}),
        );
        return { status: r.status === 1 /* SERVING */ ? 'up' : 'down' };
      }),
      timed(async () => {
        const h = await this.search.health();
        return { status: h.up ? 'up' : 'down', engine: h.engine, detail: h.detail };
      }),
    ]);
    const checks = { postgres, temporal, search };
    const down = Object.entries(checks)
      .filter(([, c]) => c.status === 'down')
      .map(([name]) => name);
    return { status: down.length ? 'unavailable' : 'ok', checks, down };
  }
}
