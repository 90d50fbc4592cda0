import 'reflect-metadata';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  AppConfig,
  ConfigError,
  findTemporalCli,
  handleShutdownSignals,
  loadConfig,
  nativeAllocator,
  resolveAppSecret,
  shutdownTracker,
  startTemporalDevServer,
  TEMPORAL_INSTALL_HINT,
  TemporalDevServer,
  withConfig,
} from '@docqa/common';
import { EmbeddedPostgres, startEmbeddedPostgres } from '@docqa/db';
import { WorkerModule } from '../../worker/src/worker.module';
import { createApi, RunningApi } from './bootstrap/create-api';

/**
 * `npm start`: the whole product in one process tree on the embedded defaults. Whatever is
 * configured (DATABASE_URL, TEMPORAL_ADDRESS, ELASTICSEARCH_URL) is used instead of its embedded
 * stand-in. The API hosts the Temporal worker in-process, so the embedded search engine and the
 * single-session PGlite are shared, not contended.
 */
export async function startStandalone(
  loaded: AppConfig = loadConfig(),
  /** Told when a part the service cannot run without has died under it (the caller stops it). */
  onFatal: (why: string) => void = () => undefined,
) {
  fs.mkdirSync(loaded.core.dataDir, { recursive: true });
  // The embedded stand-ins' addresses are known once they run: each makes a new configuration.
  let cfg = withConfig(loaded, { core: { appSecret: resolveAppSecret(loaded.core) } });
  const started: { pg?: EmbeddedPostgres; temporal?: TemporalDevServer; api?: RunningApi } = {};

  const stopAll = async () => {
    await started.api?.close().catch(() => undefined);
    await shutdownTracker.step('temporal dev server', async () => {
      await started.temporal?.stop().catch(() => undefined);
    });
    await shutdownTracker.step('embedded postgres', async () => {
      await started.pg?.stop().catch(() => undefined);
    });
  };

  try {
    if (!cfg.database.url) {
      started.pg = await startEmbeddedPostgres(path.join(cfg.core.dataDir, 'pglite'), {
        onUnexpectedExit: (reason) => {
          shutdownTracker.failed('embedded postgres', reason);
          onFatal(`the embedded database stopped (${reason})`);
        },
      });
      cfg = withConfig(cfg, { database: { url: started.pg.url, poolSize: 1 } });
    }
    if (!cfg.temporal.address) {
      const cli = findTemporalCli(cfg.temporal.cliPath);
      if (!cli) throw new ConfigError(TEMPORAL_INSTALL_HINT);
      started.temporal = await startTemporalDevServer({
        cliPath: cli,
        port: cfg.temporal.devPort,
        uiPort: cfg.temporal.uiPort,
        dbFile: path.join(cfg.core.dataDir, 'temporal.db'),
        namespace: cfg.temporal.namespace,
        logFile: path.join(cfg.core.dataDir, 'temporal.log'),
      });
      cfg = withConfig(cfg, { temporal: { address: started.temporal.address } });
      const temporal = started.temporal;
      // A forced exit must not leave the dev server running (it would hold its port and database).
      shutdownTracker.atForcedExit(() => temporal.process.kill('SIGKILL'));
    }
    started.api = await createApi(cfg, [WorkerModule]);
  } catch (err) {
    await stopAll();
    throw err;
  }
  const api = started.api;
  const temporalUi = started.temporal?.uiUrl ?? '(external Temporal: see its own UI)';
  return { cfg, api, temporalUi, stop: stopAll };
}

/** Set by `npm start` in the environment of the product it runs as a child (scripts/setup/allocator.js). */
const SUPERVISED_ENV = 'DOCQA_SUPERVISED';

/**
 * Run by `npm start` as its child (to preload jemalloc, scripts/setup/allocator.js), the product
 * stops as on SIGTERM when that parent goes away, even by SIGKILL: its IPC channel closes.
 */
function stopWithSupervisor(): void {
  if (!process.env[SUPERVISED_ENV] || !process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

/** Starts everything, prints the addresses, and stops cleanly on SIGINT/SIGTERM (`npm start`). */
export function main(): void {
  const t0 = Date.now();
  stopWithSupervisor();
  let stopNow: ((why: string) => void) | undefined;
  const onFatal = (why: string) => {
    console.error(`DocQA cannot go on: ${why}; stopping.`);
    if (stopNow) stopNow(why);
    else process.exit(1);
  };
  startStandalone(loadConfig(), onFatal)
    .then(({ cfg, api, temporalUi, stop }) => {
      const base = `https://localhost:${api.httpsPort}`;
      console.log(
        [
          '',
          `DocQA is up (${Date.now() - t0} ms)`,
          `  API           ${base}/api/v1  (Document API: ${base}/api/v1/document_proxy)`,
          `  API docs      ${base}/api/docs`,
          ...(cfg.server.publicBaseUrl && cfg.server.publicBaseUrl !== base
            ? [`  Public URL    ${cfg.server.publicBaseUrl}  (PUBLIC_BASE_URL: links in responses)`]
            : []),
          `  Temporal UI   ${temporalUi}`,
          `  CA file       ${api.tls.caFile}   (curl --cacert ${api.tls.caFile} ${base}/api/v1/document_proxy/health)`,
          `  Plain HTTP    http://localhost:${api.httpPort} (refuses every request with 403)`,
          `  Data dir      ${cfg.core.dataDir}`,
          `  Database      ${cfg.database.url?.includes('@127.0.0.1') && !process.env.DATABASE_URL ? 'embedded PGlite' : 'DATABASE_URL'}`,
          `  Search        ${cfg.search.elasticsearchUrl ? 'Elasticsearch (ELASTICSEARCH_URL)' : 'embedded engine'}`,
          `  Memory        ${nativeAllocator() === 'jemalloc' ? 'jemalloc' : 'system malloc'}`,
          'Press Ctrl-C to stop.',
          '',
        ].join('\n'),
      );
      // Graceful first; whatever is hung, the process exits within SHUTDOWN_TIMEOUT_MS, naming
      // what did not stop.
      stopNow = handleShutdownSignals({ stop, timeoutMs: cfg.core.shutdownTimeoutMs });
    })
    .catch((err: Error) => {
      console.error(`DocQA failed to start: ${err.message}`);
      process.exit(1);
    });
}

if (require.main === module) main();
