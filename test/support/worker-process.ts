import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AppConfig } from '@docqa/common';

const ROOT = path.resolve(__dirname, '../..');

export interface WorkerProcess {
  child: ChildProcess;
  logFile: string;
  /** Resolves once the worker polls its task queue. */
  ready: Promise<void>;
  /** SIGKILL: no graceful shutdown, in-flight activities are simply lost. */
  kill(): Promise<void>;
  /** SIGTERM and wait for a graceful exit. */
  stop(): Promise<void>;
}

/** The environment that reproduces `cfg` for another process (the variables the worker reads). */
export function envOf(cfg: AppConfig, logFile: string): NodeJS.ProcessEnv {
  const v = (x: unknown) => (x === undefined || x === null ? undefined : String(x));
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: cfg.core.nodeEnv,
    LOG_LEVEL: cfg.core.logLevel,
    LOG_FILE: logFile,
    DATA_DIR: cfg.core.dataDir,
    APP_SECRET: cfg.core.appSecret,
    DATABASE_URL: cfg.database.url,
    DATABASE_POOL_SIZE: v(cfg.database.poolSize),
    TEMPORAL_ADDRESS: cfg.temporal.address,
    TEMPORAL_NAMESPACE: cfg.temporal.namespace,
    TEMPORAL_TASK_QUEUE: cfg.temporal.taskQueue,
    ELASTICSEARCH_URL: cfg.search.elasticsearchUrl,
    SEARCH_INDEX_PREFIX: cfg.search.indexPrefix,
    S3_ENDPOINT: cfg.sources.s3Endpoint,
    S3_REGION: cfg.sources.s3Region,
    S3_FORCE_PATH_STYLE: v(cfg.sources.s3ForcePathStyle),
    S3_BUCKET: cfg.sources.s3Bucket,
    INDEXING_CONCURRENCY: v(cfg.indexing.concurrency),
    INDEXING_MAX_FILE_BYTES: v(cfg.indexing.maxFileBytes),
    // api and worker must embed into the same space (one index version)
    LOCAL_EMBEDDER: cfg.models.localEmbedder,
    LOCAL_EMBEDDER_MODEL_DIR: cfg.models.localEmbedderModelDir,
    DOCQA_CACHE_DIR: cfg.core.docqaCacheDir ?? process.env.DOCQA_CACHE_DIR,
    METRICS_ENABLED: 'false',
  };
  return Object.fromEntries(Object.entries(env).filter(([, x]) => x !== undefined)) as NodeJS.ProcessEnv;
}

/** Runs apps/worker/src/main.ts in a child process (TypeScript through test/support/ts-register.js). */
export function spawnWorker(cfg: AppConfig, name = 'worker'): WorkerProcess {
  const logFile = path.join(cfg.core.dataDir, `${name}.log`);
  const child = spawn(
    process.execPath,
    ['-r', path.join(ROOT, 'test/support/ts-register.js'), path.join(ROOT, 'apps/worker/src/main.ts')],
    { cwd: ROOT, env: envOf(cfg, logFile), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const ready = (async () => {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null)
        throw new Error(`worker exited (${child.exitCode}): ${stderr.slice(-2000)}`);
      if (fs.existsSync(logFile) && fs.readFileSync(logFile, 'utf8').includes('worker polling task queue'))
        return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`worker did not start: ${stderr.slice(-2000)}`);
  })();
  return {
    child,
    logFile,
    ready,
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
