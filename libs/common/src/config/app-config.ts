import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError, EnvReader, resolved } from './env-reader';
import type {
  AccountsConfig,
  AppConfig,
  CoreConfig,
  DatabaseConfig,
  IndexingConfig,
  MailConfig,
  MetricsConfig,
  ModelsConfig,
  SearchConfig,
  ServerConfig,
  SourcesConfig,
  TemporalConfig,
} from './slices';

export { ConfigError } from './env-reader';
export * from './slices';

type Raw = Record<string, string | undefined>;

const bad = (message: string) => new ConfigError(`Invalid configuration: ${message}`);

/**
 * The embedded Temporal Web UI listens this far above TEMPORAL_DEV_PORT: the Temporal CLI's own
 * relation (`temporal server start-dev`: frontend 7233, UI 8233).
 */
export const TEMPORAL_UI_PORT_OFFSET = 1000;

/**
 * Deadlines derived from the operator's SEARCH_WRITE_TIMEOUT_MS (default 120 s), which keep the
 * values docs/adr/0009 chose (lock 60 s, maintenance 10 min, first retry 15 s) and shorten with it.
 * Lock wait: half the write deadline, so a writer that waited for the lock still has time to write.
 */
export const SEARCH_LOCK_WAIT_PER_WRITE = 1 / 2;
/** Embedded index maintenance: five writes' time (it folds many writes into the indices at once). */
export const SEARCH_MAINTENANCE_PER_WRITE = 5;
/**
 * First wait before retrying a step whose dependency was unavailable (doubling up to 2 minutes,
 * docs/adr/0037): an eighth of the write deadline, so a step outlasts about ten minutes of outage.
 */
export const UNAVAILABLE_RETRY_PER_WRITE = 1 / 8;

export function coreConfig(r: EnvReader): CoreConfig {
  const appSecret = r.optString('APP_SECRET');
  if (appSecret !== undefined && appSecret.length < 32)
    throw bad('APP_SECRET must be at least 32 characters');
  return {
    nodeEnv: r.oneOf('NODE_ENV', ['development', 'production', 'test'] as const),
    logLevel: r.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    logFile: r.optPath('LOG_FILE'),
    dataDir: path.resolve(r.optPath('DATA_DIR') ?? './data'),
    docqaCacheDir: r.optPath('DOCQA_CACHE_DIR'),
    appSecret,
    shutdownTimeoutMs: r.int('SHUTDOWN_TIMEOUT_MS'),
  };
}

export function serverConfig(r: EnvReader): ServerConfig {
  const tlsCertFile = r.optPath('TLS_CERT_FILE');
  const tlsKeyFile = r.optPath('TLS_KEY_FILE');
  if (!!tlsCertFile !== !!tlsKeyFile) throw bad('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  const publicBaseUrl = r.optUrl('PUBLIC_BASE_URL');
  return {
    httpsPort: r.port('HTTPS_PORT'),
    httpPort: r.port('HTTP_PORT'),
    bindHost: r.string('BIND_HOST'),
    tlsCertFile,
    tlsKeyFile,
    trustProxy: r.bool('TRUST_PROXY'),
    publicBaseUrl: publicBaseUrl === undefined ? undefined : normalisePublicBaseUrl(publicBaseUrl),
    maxBodyBytes: r.int('MAX_BODY_BYTES'),
  };
}

export function accountsConfig(r: EnvReader): AccountsConfig {
  return { requireTermsOfService: r.bool('REQUIRE_TERMS_OF_SERVICE') };
}

export function databaseConfig(r: EnvReader): DatabaseConfig {
  const url = r.optUrl('DATABASE_URL');
  if (url && !/^postgres(ql)?:\/\//.test(url)) throw bad('DATABASE_URL must be a postgres:// URL');
  return { url, poolSize: r.int('DATABASE_POOL_SIZE') };
}

export function temporalConfig(r: EnvReader): TemporalConfig {
  const devPort = r.port('TEMPORAL_DEV_PORT');
  const uiPort = devPort + TEMPORAL_UI_PORT_OFFSET;
  if (uiPort > 65535)
    throw bad(`TEMPORAL_DEV_PORT=${devPort} leaves no Web UI port (${uiPort}); pick one below 64536`);
  return {
    address: r.optString('TEMPORAL_ADDRESS'),
    namespace: r.string('TEMPORAL_NAMESPACE'),
    cliPath: r.optPath('TEMPORAL_CLI_PATH'),
    devPort,
    uiPort,
    taskQueue: r.string('TEMPORAL_TASK_QUEUE'),
  };
}

export function searchConfig(r: EnvReader): SearchConfig {
  const writeTimeoutMs = r.int('SEARCH_WRITE_TIMEOUT_MS');
  return {
    elasticsearchUrl: r.optUrl('ELASTICSEARCH_URL'),
    indexPrefix: r.string('SEARCH_INDEX_PREFIX'),
    readTimeoutMs: r.int('SEARCH_READ_TIMEOUT_MS'),
    writeTimeoutMs,
    lockTimeoutMs: Math.max(1, Math.round(writeTimeoutMs * SEARCH_LOCK_WAIT_PER_WRITE)),
    maintenanceTimeoutMs: writeTimeoutMs * SEARCH_MAINTENANCE_PER_WRITE,
  };
}

export function indexingConfig(r: EnvReader): IndexingConfig {
  return {
    concurrency: r.optInt('INDEXING_CONCURRENCY'),
    maxFileBytes: r.int('INDEXING_MAX_FILE_BYTES'),
    workerMaxConcurrentActivities: r.int('WORKER_MAX_CONCURRENT_ACTIVITIES'),
    unavailableRetryMs: Math.max(
      1,
      Math.round(r.int('SEARCH_WRITE_TIMEOUT_MS') * UNAVAILABLE_RETRY_PER_WRITE),
    ),
  };
}

export function sourcesConfig(r: EnvReader): SourcesConfig {
  return {
    s3Endpoint: r.optUrl('S3_ENDPOINT'),
    s3Region: r.string('S3_REGION'),
    s3ForcePathStyle: r.bool('S3_FORCE_PATH_STYLE'),
    s3Bucket: r.optString('S3_BUCKET'),
    uploadS3Bucket: r.optString('UPLOAD_S3_BUCKET'),
    uploadMaxFileBytes: r.int('INDEXING_MAX_FILE_BYTES'),
    graphBaseUrl: r.optUrl('GRAPH_BASE_URL'),
    msAuthorityHost: r.optUrl('MS_AUTHORITY_HOST'),
    googleApiRootUrl: r.optUrl('GOOGLE_API_ROOT_URL'),
    googleTokenUrl: r.optUrl('GOOGLE_TOKEN_URL'),
    caFile: r.optString('SOURCE_CA_FILE'),
  };
}

export function modelsConfig(r: EnvReader): ModelsConfig {
  return {
    cohereApiKey: r.optString('COHERE_API_KEY'),
    cohereBaseUrl: r.optUrl('COHERE_BASE_URL'),
    cohereEmbedModel: r.string('COHERE_EMBED_MODEL'),
    cohereChatModel: r.string('COHERE_CHAT_MODEL'),
    cohereRerankModel: r.optString('COHERE_RERANK_MODEL'),
    answerProvider: r.oneOf('ANSWER_PROVIDER', [
      'auto',
      'extractive',
      'local-llm',
      'openai',
      'cohere',
    ] as const),
    openaiBaseUrl: r.optUrl('OPENAI_BASE_URL'),
    openaiApiKey: r.optString('OPENAI_API_KEY'),
    openaiModel: r.string('OPENAI_MODEL'),
    openaiTimeoutMs: r.int('OPENAI_TIMEOUT_MS'),
    llmModelPath: resolved(r.optPath('LLM_MODEL_PATH')),
    llmTimeoutMs: r.int('LLM_TIMEOUT_MS'),
    localEmbedder: r.oneOf('LOCAL_EMBEDDER', ['auto', 'minilm', 'bge-small', 'hashing'] as const),
    localEmbedderModelDir: r.optPath('LOCAL_EMBEDDER_MODEL_DIR'),
    localEmbedderPrecision: r.oneOf('LOCAL_EMBEDDER_PRECISION', ['auto', 'fp32', 'int8'] as const),
  };
}

export function mailConfig(r: EnvReader): MailConfig {
  return { smtpUrl: r.optUrl('SMTP_URL'), from: r.string('MAIL_FROM') };
}

export function metricsConfig(r: EnvReader): MetricsConfig {
  return { enabled: r.bool('METRICS_ENABLED'), port: r.port('METRICS_PORT'), host: r.string('METRICS_HOST') };
}

/** A frozen copy of each slice and of the whole: nothing changes the configuration after load. */
export function frozenConfig(cfg: AppConfig): AppConfig {
  const slices = Object.fromEntries(Object.entries(cfg).map(([k, v]) => [k, Object.freeze({ ...v })]));
  return Object.freeze({ ...cfg, ...slices });
}

/** Reads and validates the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(env: Raw = process.env): AppConfig {
  const r = new EnvReader(env);
  return frozenConfig({
    core: coreConfig(r),
    server: serverConfig(r),
    accounts: accountsConfig(r),
    database: databaseConfig(r),
    temporal: temporalConfig(r),
    search: searchConfig(r),
    indexing: indexingConfig(r),
    sources: sourcesConfig(r),
    models: modelsConfig(r),
    mail: mailConfig(r),
    metrics: metricsConfig(r),
  });
}

/** `https://host[:port][/prefix]`, no trailing slash; anything else (http, query, credentials) is a ConfigError. */
function normalisePublicBaseUrl(raw: string): string {
  const u = new URL(raw);
  const fail = (why: string) => bad(`PUBLIC_BASE_URL ${why}`);
  if (u.protocol !== 'https:') throw fail('must be an https:// URL (the API serves HTTPS only)');
  if (u.search || u.hash || u.username || u.password)
    throw fail('must be a plain https://host[:port][/path] address, without query, fragment or credentials');
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** The base of absolute URLs in responses: PUBLIC_BASE_URL, else the local HTTPS address `npm start` prints. */
export function publicBaseUrlOf(server: ServerConfig, httpsPort = server.httpsPort): string {
  return server.publicBaseUrl ?? `https://localhost:${httpsPort}`;
}

/**
 * Embedded mode keeps a generated APP_SECRET in DATA_DIR so tokens survive restarts. Production
 * must set APP_SECRET explicitly.
 */
export function resolveAppSecret(core: CoreConfig): string {
  if (core.appSecret) return core.appSecret;
  if (core.nodeEnv === 'production') throw bad('APP_SECRET is required in production');
  const file = path.join(core.dataDir, 'app-secret');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(core.dataDir, { recursive: true });
    fs.writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/** Changes to some fields of some slices (`withConfig`). */
export type ConfigPatch = { readonly [K in keyof AppConfig]?: Partial<AppConfig[K]> };

/**
 * A new frozen configuration: `cfg` with `patch` applied; `cfg` itself is left as it was. For the
 * embedded stand-ins `npm start` provides (their addresses are known once they run) and for tests
 * that set a field without an environment variable.
 */
export function withConfig(cfg: AppConfig, patch: ConfigPatch): AppConfig {
  return frozenConfig({
    core: { ...cfg.core, ...patch.core },
    server: { ...cfg.server, ...patch.server },
    accounts: { ...cfg.accounts, ...patch.accounts },
    database: { ...cfg.database, ...patch.database },
    temporal: { ...cfg.temporal, ...patch.temporal },
    search: { ...cfg.search, ...patch.search },
    indexing: { ...cfg.indexing, ...patch.indexing },
    sources: { ...cfg.sources, ...patch.sources },
    models: { ...cfg.models, ...patch.models },
    mail: { ...cfg.mail, ...patch.mail },
    metrics: { ...cfg.metrics, ...patch.metrics },
  });
}
