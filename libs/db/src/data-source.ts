import { DataSource, DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export interface DbOptions {
  url: string;
  /** The embedded launcher sets 1: PGlite is a single session. */
  poolSize: number;
  /** Longest wait for a connection from the pool (the server: DATABASE_POOL_WAIT_MS); 5 s when unset. */
  poolWaitMs?: number;
}

/**
 * The server's longest wait for a free pool connection; past it a request answers 503 and an
 * indexing step fails as retryable. Queueing is CPU starvation on a busy host, which should queue
 * rather than fail: a 5 s wait failed a CI run (docs/adr/0038-database-unavailable-is-503.md).
 */
export const DATABASE_POOL_WAIT_MS = 20_000;

export function dataSourceOptions(o: DbOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: o.url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsRun: false,
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: {
      max: o.poolSize,
      // A bounded wait: a saturated pool or an unreachable server fails (503 at the API, a
      // retryable step in the worker) rather than hanging the caller.
      connectionTimeoutMillis: o.poolWaitMs ?? 5000,
      // Keep a bad query from pinning a connection forever.
      statement_timeout: 60000,
    },
  };
}

/** Applies pending migrations (used at start-up and by `npm run migration:run`). */
export async function runMigrations(o: DbOptions): Promise<string[]> {
  const ds = new DataSource(dataSourceOptions(o));
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
