import type { ConfigVariable } from '../config.schema';

/** Temporal, Elasticsearch and S3 endpoints, uploads. */
export const ENGINES_VARIABLES = [
  {
    name: 'TEMPORAL_ADDRESS',
    kind: 'string',
    description:
      'host:port of the Temporal frontend. Unset: `temporal server start-dev` is spawned with its SQLite file in DATA_DIR.',
  },
  {
    name: 'TEMPORAL_NAMESPACE',
    kind: 'string',
    default: 'default',
    description: 'Temporal namespace for workflows.',
  },
  {
    name: 'TEMPORAL_CLI_PATH',
    kind: 'path',
    description:
      'Path of the `temporal` CLI used for the embedded dev server. Unset: PATH, then ~/.cache/docqa/temporal/bin/temporal.',
  },
  {
    name: 'TEMPORAL_DEV_PORT',
    kind: 'port',
    default: '7233',
    description:
      'Frontend port of the embedded Temporal dev server (only when TEMPORAL_ADDRESS is unset); its Web UI listens 1000 above (8233).',
  },
  {
    name: 'TEMPORAL_TASK_QUEUE',
    kind: 'string',
    default: 'docqa-indexing',
    description: 'Task queue of the indexing workflows and activities.',
  },
  {
    name: 'ELASTICSEARCH_URL',
    kind: 'url',
    secret: true,
    description:
      'URL of the Elasticsearch 8.x cluster. Unset: the embedded search engine in DATA_DIR/search.',
  },
  {
    name: 'SEARCH_INDEX_PREFIX',
    kind: 'string',
    default: 'docqa-chunks',
    description:
      'Name of the Elasticsearch chunk alias and prefix of its versioned indices and templates (`<prefix>-v<n>-<embedder>-<dims>`).',
  },
  {
    name: 'S3_ENDPOINT',
    kind: 'url',
    description: 'S3 endpoint override (S3-compatible stores). Unset: AWS.',
  },
  { name: 'S3_REGION', kind: 'string', default: 'us-east-1', description: 'Default S3 region.' },
  {
    name: 'S3_FORCE_PATH_STYLE',
    kind: 'bool',
    default: 'false',
    description: 'Use path-style S3 addressing (most S3-compatible stores need it).',
  },
  {
    name: 'S3_BUCKET',
    kind: 'string',
    description: 'Bucket the server may read without request credentials (server-configured bucket access).',
  },
  {
    name: 'UPLOAD_S3_BUCKET',
    kind: 'string',
    description:
      "Bucket of the upload store (POST /index/upload), reached with the S3_* settings and the server's own AWS identity. Unset: files under DATA_DIR/uploads; in production uploads then answer 503.",
  },
] as const satisfies readonly ConfigVariable[];
