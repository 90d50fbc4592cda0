/**
 * The configuration by area: each lib reads the slice of its own area (plus `core`, what every
 * process shares). Built and validated once by `loadConfig` and frozen; nothing changes it after.
 *
 * A field marked "unset: the constant" is not an environment variable: the lib that reads it uses
 * its named constant (the value evaluation or a benchmark chose). Tests set it in-process to reach a
 * behaviour in less time (a shorter retry, a smaller budget).
 */

/** What every process shares: mode, logs, data and cache directories, the secret, stop deadline. */
export interface CoreConfig {
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly logLevel: string;
  readonly logFile?: string;
  /** Absolute. */
  readonly dataDir: string;
  readonly docqaCacheDir?: string;
  readonly appSecret?: string;
  readonly shutdownTimeoutMs: number;
}

/** The HTTPS API (apps/api). */
export interface ServerConfig {
  readonly httpsPort: number;
  readonly httpPort: number;
  readonly bindHost: string;
  readonly tlsCertFile?: string;
  readonly tlsKeyFile?: string;
  readonly trustProxy: boolean;
  /** `https://host[:port][/prefix]` without a trailing slash (see `publicBaseUrlOf`). */
  readonly publicBaseUrl?: string;
  readonly maxBodyBytes: number;
  /** Unset: the constant SSE_KEEPALIVE_MS (apps/api). */
  readonly sseKeepaliveMs?: number;
}

/** libs/accounts. */
export interface AccountsConfig {
  readonly requireTermsOfService: boolean;
}

/** libs/db. */
export interface DatabaseConfig {
  /** postgres:// URL; unset: the embedded PGlite. */
  readonly url?: string;
  readonly poolSize: number;
  /** Unset: the constant DATABASE_POOL_WAIT_MS (libs/db). */
  readonly poolWaitMs?: number;
}

/** The Temporal connection (libs/common/temporal, apps/worker, libs/indexing). */
export interface TemporalConfig {
  readonly address?: string;
  readonly namespace: string;
  readonly cliPath?: string;
  readonly devPort: number;
  readonly uiPort: number;
  readonly taskQueue: string;
}

/** libs/search. */
export interface SearchConfig {
  readonly elasticsearchUrl?: string;
  readonly indexPrefix: string;
  readonly readTimeoutMs: number;
  readonly writeTimeoutMs: number;
  readonly lockTimeoutMs: number;
  readonly maintenanceTimeoutMs: number;
}

/** libs/indexing and the worker. */
export interface IndexingConfig {
  /** Unset: `indexingWindow()` picks by search engine. */
  readonly concurrency?: number;
  readonly maxFileBytes: number;
  readonly workerMaxConcurrentActivities: number;
  readonly unavailableRetryMs: number;
  /** Unset: the constant INDEXING_CHILDREN_PER_RUN (libs/indexing). */
  readonly childrenPerRun?: number;
}

/** libs/sources: S3, uploads, SharePoint and Google Drive. */
export interface SourcesConfig {
  readonly s3Endpoint?: string;
  readonly s3Region: string;
  readonly s3ForcePathStyle: boolean;
  readonly s3Bucket?: string;
  readonly uploadS3Bucket?: string;
  /** Largest uploaded file: INDEXING_MAX_FILE_BYTES (a larger one could not be indexed). */
  readonly uploadMaxFileBytes: number;
  /** Unset: the constant UPLOAD_MAX_FILES (libs/sources). */
  readonly uploadMaxFiles?: number;
  readonly graphBaseUrl?: string;
  readonly msAuthorityHost?: string;
  readonly googleApiRootUrl?: string;
  readonly googleTokenUrl?: string;
  readonly caFile?: string;
  /** Unset: the constant SOURCE_REQUEST_TIMEOUT_MS (libs/sources). */
  readonly requestTimeoutMs?: number;
}

export type AnswerProviderSetting = 'auto' | 'extractive' | 'local-llm' | 'openai' | 'cohere';
export type LocalEmbedderSetting = 'auto' | 'minilm' | 'bge-small' | 'hashing';
export type EmbedderPrecisionSetting = 'auto' | 'fp32' | 'int8';

/** libs/answers and libs/embeddings: answer providers and embedders. */
export interface ModelsConfig {
  readonly cohereApiKey?: string;
  readonly cohereBaseUrl?: string;
  readonly cohereEmbedModel: string;
  readonly cohereChatModel: string;
  readonly cohereRerankModel?: string;
  readonly answerProvider: AnswerProviderSetting;
  readonly openaiBaseUrl?: string;
  readonly openaiApiKey?: string;
  readonly openaiModel: string;
  readonly openaiTimeoutMs: number;
  /** Absolute. */
  readonly llmModelPath?: string;
  /** No variable: unset is LLM_THREADS_PER_CORE per core (libs/answers); tests set fewer in-process. */
  readonly llmThreads?: number;
  readonly llmTimeoutMs: number;
  readonly localEmbedder: LocalEmbedderSetting;
  readonly localEmbedderModelDir?: string;
  /** Unset: the constant LLM_CONTEXT_SIZE (libs/answers). */
  readonly llmContextSize?: number;
  /** Unset: the constant LLM_MAX_ANSWER_TOKENS (libs/answers). */
  readonly llmMaxAnswerTokens?: number;
  /** Unset: the constant PROMPT_TOKEN_BUDGET (libs/answers). */
  readonly promptTokenBudget?: number;
  readonly localEmbedderPrecision: EmbedderPrecisionSetting;
}

/** libs/chatbot: support e-mail. */
export interface MailConfig {
  readonly smtpUrl?: string;
  readonly from: string;
  /** Unset: the constants MAIL_OUTBOX_POLL_MS, MAIL_RETRY_BASE_MS, MAIL_RETRY_MAX_MS (libs/chatbot). */
  readonly outboxPollMs?: number;
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
}

/** libs/common/metrics. */
export interface MetricsConfig {
  readonly enabled: boolean;
  readonly port: number;
  readonly host: string;
}

/** Every slice; injected as APP_CONFIG, each lib reading its own. */
export interface AppConfig {
  readonly core: CoreConfig;
  readonly server: ServerConfig;
  readonly accounts: AccountsConfig;
  readonly database: DatabaseConfig;
  readonly temporal: TemporalConfig;
  readonly search: SearchConfig;
  readonly indexing: IndexingConfig;
  readonly sources: SourcesConfig;
  readonly models: ModelsConfig;
  readonly mail: MailConfig;
  readonly metrics: MetricsConfig;
}
