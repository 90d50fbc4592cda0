import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONFIG_VARIABLES, ConfigVariable } from './config.schema';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Typed, validated configuration. Built once per process from the environment. */
export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  logLevel: string;
  logFile?: string;
  dataDir: string;
  docqaCacheDir?: string;
  httpsPort: number;
  httpPort: number;
  bindHost: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  trustProxy: boolean;
  /**
   * `https://host[:port][/prefix]` without a trailing slash; set from HTTPS_PORT by createApi
   * when PUBLIC_BASE_URL is unset (see `publicBaseUrlOf`).
   */
  publicBaseUrl?: string;
  appSecret?: string;
  databaseUrl?: string;
  databasePoolSize: number;
  databasePoolWaitMs: number;
  temporalAddress?: string;
  temporalNamespace: string;
  temporalCliPath?: string;
  temporalDevPort: number;
  temporalUiPort: number;
  temporalTaskQueue: string;
  elasticsearchUrl?: string;
  searchIndexPrefix: string;
  s3Endpoint?: string;
  s3Region: string;
  s3ForcePathStyle: boolean;
  s3Bucket?: string;
  uploadS3Bucket?: string;
  uploadMaxFiles: number;
  uploadMaxFileBytes: number;
  /** Unset: indexingWindow() picks by search engine. */
  indexingConcurrency?: number;
  indexingChildrenPerRun: number;
  indexingMaxFileBytes: number;
  workerMaxConcurrentActivities: number;
  indexingStallAfterMs: number;
  indexingUnavailableRetryMs: number;
  searchReadTimeoutMs: number;
  searchWriteTimeoutMs: number;
  searchLockTimeoutMs: number;
  searchMaintenanceTimeoutMs: number;
  searchEmbeddedCacheMb: number;
  searchEmbeddedReleaseMemory: boolean;
  healthCheckTimeoutMs: number;
  shutdownTimeoutMs: number;
  cohereApiKey?: string;
  cohereBaseUrl?: string;
  cohereEmbedModel: string;
  cohereChatModel: string;
  cohereRerankModel?: string;
  sseKeepaliveMs: number;
  localAnswerMinMargin: string;
  localRerankSearchWeight: string;
  answerProvider: 'auto' | 'extractive' | 'local-llm' | 'openai' | 'cohere';
  openaiBaseUrl?: string;
  openaiApiKey?: string;
  openaiModel: string;
  openaiTimeoutMs: number;
  openaiMaxAttempts: number;
  llmModelPath?: string;
  llmContextSize: number;
  llmThreads?: number;
  llmFlashAttention: boolean;
  llmMaxAnswerTokens: number;
  llmTimeoutMs: number;
  llmMaxQueue: number;
  promptTokenBudget: number;
  llmFirstTokenTargetMs: number;
  llmEvidence: 'chosen' | 'retrieved';
  llmOpeningCheck: boolean;
  localEmbedder: 'auto' | 'minilm' | 'bge-small' | 'hashing';
  localEmbedderModelDir?: string;
  localEmbedderSessions: number;
  localEmbedderThreads: number;
  localEmbedderBatchSize: number;
  backgroundThreadsLowPriority: boolean;
  localEmbedderPrecision: 'auto' | 'fp32' | 'int8';
  searchFusion: 'convex' | 'rrf';
  smtpUrl?: string;
  mailFrom: string;
  mailOutboxPollMs: number;
  mailRetryBaseMs: number;
  mailRetryMaxMs: number;
  chatbotFileLinkTtlSeconds: number;
  graphBaseUrl?: string;
  msAuthorityHost?: string;
  googleApiRootUrl?: string;
  googleTokenUrl?: string;
  sourceCaFile?: string;
  sourceRequestTimeoutMs: number;
  metricsEnabled: boolean;
  metricsPort: number;
  metricsHost: string;
  eventLoopStallWarnMs: number;
  maxBodyBytes: number;
  requireTermsOfService: boolean;
  gitCommit?: string;
}

type Raw = Record<string, string | undefined>;

function parseValue(v: ConfigVariable, raw: string): string | number | boolean {
  const fail = (why: string): never => {
    throw new ConfigError(
      `Invalid configuration: ${v.name}=${v.secret ? '<redacted>' : JSON.stringify(raw)} ${why}`,
    );
  };
  switch (v.kind) {
    case 'port': {
      const n = Number(raw);
      if (!/^\d+$/.test(raw) || n < 0 || n > 65535) fail('must be a port number 0-65535');
      return n;
    }
    case 'int': {
      const n = Number(raw);
      if (!/^\d+$/.test(raw) || n < 1) fail('must be a positive integer');
      return n;
    }
    case 'bool': {
      const s = raw.toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(s)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(s)) return false;
      return fail('must be true or false');
    }
    case 'url': {
      try {
        new URL(raw);
      } catch {
        fail('must be an absolute URL');
      }
      return raw;
    }
    case 'enum':
      if (!v.values?.includes(raw)) fail(`must be one of ${v.values?.join(', ')}`);
      return raw;
    default:
      if (raw.trim() === '') fail('must not be empty');
      return raw;
  }
}

const camel = (name: string) =>
  name.toLowerCase().replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** Reads and validates the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(env: Raw = process.env): AppConfig {
  const out: Record<string, unknown> = {};
  for (const v of CONFIG_VARIABLES as readonly ConfigVariable[]) {
    const raw = env[v.name];
    const value = raw === undefined || raw === '' ? v.default : raw;
    out[camel(v.name)] = value === undefined ? undefined : parseValue(v, value);
  }
  const cfg = out as unknown as AppConfig;
  cfg.dataDir = path.resolve(cfg.dataDir);
  if (cfg.llmModelPath) cfg.llmModelPath = path.resolve(cfg.llmModelPath);
  if (!!cfg.tlsCertFile !== !!cfg.tlsKeyFile) {
    throw new ConfigError('Invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  if (cfg.appSecret !== undefined && cfg.appSecret.length < 32) {
    throw new ConfigError('Invalid configuration: APP_SECRET must be at least 32 characters');
  }
  if (cfg.publicBaseUrl !== undefined) cfg.publicBaseUrl = normalisePublicBaseUrl(cfg.publicBaseUrl);
  // the embedder's own bounds: out of them it would not load, and `auto` would fall back to hashing
  if (cfg.localEmbedderSessions > 64)
    throw new ConfigError('Invalid configuration: LOCAL_EMBEDDER_SESSIONS must be an integer 1-64');
  if (cfg.localEmbedderBatchSize > 256)
    throw new ConfigError('Invalid configuration: LOCAL_EMBEDDER_BATCH_SIZE must be an integer 1-256');
  if (cfg.databaseUrl && !/^postgres(ql)?:\/\//.test(cfg.databaseUrl)) {
    throw new ConfigError('Invalid configuration: DATABASE_URL must be a postgres:// URL');
  }
  return cfg;
}

/** `https://host[:port][/prefix]`, no trailing slash; anything else (http, query, credentials) is a ConfigError. */
function normalisePublicBaseUrl(raw: string): string {
  const u = new URL(raw);
  const bad = (why: string) => new ConfigError(`Invalid configuration: PUBLIC_BASE_URL ${why}`);
  if (u.protocol !== 'https:') throw bad('must be an https:// URL (the API serves HTTPS only)');
  if (u.search || u.hash || u.username || u.password)
    throw bad('must be a plain https://host[:port][/path] address, without query, fragment or credentials');
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** The base of absolute URLs in responses: PUBLIC_BASE_URL, else the local HTTPS address `npm start` prints. */
export function publicBaseUrlOf(cfg: AppConfig, httpsPort = cfg.httpsPort): string {
  return cfg.publicBaseUrl ?? `https://localhost:${httpsPort}`;
}

/**
 * Embedded mode keeps a generated APP_SECRET in DATA_DIR so tokens survive restarts. Production
 * must set APP_SECRET explicitly.
 */
export function resolveAppSecret(cfg: AppConfig): string {
  if (cfg.appSecret) return cfg.appSecret;
  if (cfg.nodeEnv === 'production')
    throw new ConfigError('Invalid configuration: APP_SECRET is required in production');
  const file = path.join(cfg.dataDir, 'app-secret');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(cfg.dataDir, { recursive: true });
    fs.writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
  }
  return fs.readFileSync(file, 'utf8').trim();
}
