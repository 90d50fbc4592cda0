import * as fs from 'node:fs';
import * as path from 'node:path';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * The embedded default database: PGlite on disk in `dir`, served over the Postgres wire protocol
 * by pglite-socket so the same `pg` driver, TypeORM and migrations run as in production.
 */
export async function startEmbeddedPostgres(
  dir: string,
  port = 0,
  host = '127.0.0.1',
): Promise<EmbeddedPostgres> {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create({ dataDir: dir });
  // PGlite is one session: the app uses a pool of 1 (see dataSourceOptions), the spare
  // connections are for tools such as psql and `npm run migration:run`.
  const server = new PGLiteSocketServer({ db, port, host, maxConnections: 4 });
  await server.start();
  return {
    url: `postgres://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
