import { Client as EsClient } from '@elastic/elasticsearch';
import { DynamicModule, Type } from '@nestjs/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import { AppConfig, ConfigPatch, loadConfig, withConfig } from '@docqa/common';
import { INT8_SPACE_SUFFIX, LOCAL_EMBEDDER_MODEL, resolvePrecision } from '@docqa/embeddings';
import { createApi, RunningApi } from '../../apps/api/src/bootstrap/create-api';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { deleteEsPrefix } from '../search/es-cleanup';
import { TestClient } from './http';
import { createTestDatabase, infra, uniqueName } from './infra';

export interface TestApp {
  api: RunningApi;
  cfg: AppConfig;
  client: TestClient;
  /** Plain-HTTP base URL (the refusing listener). */
  httpUrl: string;
  logFile: string;
  dataDir: string;
  /** Everything logged so far (JSON lines). */
  logs(): string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Environment overrides (names as in .env.example). */
  env?: Record<string, string | undefined>;
  /**
   * Fields set in-process after loading, for values that are constants of the product rather than
   * variables (a shorter retry, a smaller prompt budget): see the slices in libs/common config.
   */
  config?: ConfigPatch;
  /** Host the Temporal worker in the same process, on a unique task queue. */
  worker?: boolean;
  /** Use the embedded search engine instead of the test Elasticsearch. */
  embeddedSearch?: boolean;
  extraModules?: Array<Type | DynamicModule>;
}

/**
 * Starts the real API (HTTPS + refusing HTTP) on free ports against the test engines, with its
 * own database, data dir and log file.
 */
export async function startTestApp(o: TestAppOptions = {}): Promise<TestApp> {
  const i = infra();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-app-'));
  const logFile = path.join(dataDir, 'app.log');
  // Its own Elasticsearch alias unless the suite names one (then the suite cleans it up): suites
  // running at the same time must not share chunks, and each suite's accounts start at 1.
  const ownPrefix = o.embeddedSearch || o.env?.SEARCH_INDEX_PREFIX ? undefined : uniqueName('t-chunks');
  const env: Record<string, string | undefined> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    LOG_FILE: logFile,
    DATA_DIR: dataDir,
    HTTPS_PORT: '0',
    HTTP_PORT: '0',
    METRICS_PORT: '0',
    BIND_HOST: '127.0.0.1',
    APP_SECRET: 'test-secret-0123456789abcdef0123456789abcdef',
    DATABASE_URL: await createTestDatabase(),
    DATABASE_POOL_SIZE: '5',
    TEMPORAL_ADDRESS: i.temporalAddress,
    // The Jest worker's namespace on the shared server; a suite's own server has `default` only.
    TEMPORAL_NAMESPACE: o.env?.TEMPORAL_ADDRESS ? undefined : i.temporalNamespace,
    TEMPORAL_TASK_QUEUE: uniqueName('docqa-test'),
    ELASTICSEARCH_URL: o.embeddedSearch ? undefined : i.elasticsearchUrl,
    SEARCH_INDEX_PREFIX: ownPrefix,
    // The product's default local embedder, for real (test/infra provisions the model); `minilm`
    // rather than `auto`, so a missing model fails the suite instead of falling back.
    LOCAL_EMBEDDER: 'minilm',
    ...(o.env ?? {}),
  };
  const cfg = withConfig(loadConfig(env), o.config ?? {});
  // nestjs-pino keeps its out-of-context logger (every Nest Logger line) in a module-level
  // variable bound to the first app's LOG_FILE; without a reset, a second app in the same test
  // file would log into the first one's (deleted) file.
  __resetOutOfContextForTests();
  const extra = [...(o.worker ? [WorkerModule] : []), ...(o.extraModules ?? [])];
  const api = await createApi(cfg, extra);
  const client = new TestClient(`https://localhost:${api.httpsPort}`, api.tls.caFile);
  return {
    api,
    cfg,
    client,
    httpUrl: `http://127.0.0.1:${api.httpPort}`,
    logFile,
    dataDir,
    logs: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
    async close() {
      await client.close();
      await api.close();
      if (ownPrefix) {
        const es = new EsClient({ node: i.elasticsearchUrl });
        await deleteEsPrefix(es, ownPrefix).finally(() => es.close());
      }
      // DOCQA_TEST_LOG_DIR keeps each app's log (debugging a failure seen only under load).
      const keep = process.env.DOCQA_TEST_LOG_DIR;
      if (keep && fs.existsSync(logFile)) {
        fs.mkdirSync(keep, { recursive: true });
        fs.copyFileSync(logFile, path.join(keep, `${path.basename(dataDir)}.log`));
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A local embedder's space name (the test apps' MiniLM unless named) with the default
 * LOCAL_EMBEDDER_PRECISION on this machine: `auto` runs the int8 graph (its own space) where the
 * CPU has integer dot products, fp32 elsewhere.
 */
export function defaultLocalEmbedderName(model: string = LOCAL_EMBEDDER_MODEL): string {
  const cfg = loadConfig({ NODE_ENV: 'test', DATA_DIR: os.tmpdir() });
  return resolvePrecision(cfg.models.localEmbedderPrecision, true) === 'int8'
    ? `${model}${INT8_SPACE_SUFFIX}`
    : model;
}
