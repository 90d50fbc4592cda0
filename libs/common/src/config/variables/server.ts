import type { ConfigVariable } from '../config.schema';

/** Process, HTTP server, TLS, secrets and Postgres. */
export const SERVER_VARIABLES = [
  {
    name: 'NODE_ENV',
    kind: 'enum',
    values: ['development', 'production', 'test'],
    default: 'development',
    description: 'Runtime mode; production requires APP_SECRET to be set explicitly.',
  },
  {
    name: 'LOG_LEVEL',
    kind: 'enum',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    description: 'Minimum level of the JSON logs.',
  },
  {
    name: 'LOG_FILE',
    kind: 'path',
    description: 'Append JSON logs to this file instead of standard output.',
  },
  {
    name: 'DATA_DIR',
    kind: 'path',
    default: './data',
    description:
      'Directory of the embedded defaults: PGlite database, Temporal SQLite file, embedded search index, generated TLS pair and APP_SECRET.',
  },
  {
    name: 'DOCQA_CACHE_DIR',
    kind: 'path',
    description:
      'Cache of what the first `npm start` provisions (Temporal CLI, embedding model, its converter venv), shared by every data dir. Unset: ~/.cache/docqa.',
  },
  { name: 'HTTPS_PORT', kind: 'port', default: '8443', description: 'Port of the HTTPS API.' },
  {
    name: 'HTTP_PORT',
    kind: 'port',
    default: '8080',
    description: 'Port of the plain-HTTP listener, which refuses every request with 403 HTTPS_REQUIRED.',
  },
  { name: 'BIND_HOST', kind: 'string', default: '0.0.0.0', description: 'Address both listeners bind to.' },
  {
    name: 'TLS_CERT_FILE',
    kind: 'path',
    description:
      'PEM certificate (chain) for HTTPS. Unset: a self-signed pair is generated once into DATA_DIR/tls.',
  },
  {
    name: 'TLS_KEY_FILE',
    kind: 'path',
    description: 'PEM private key for HTTPS. Must be set together with TLS_CERT_FILE.',
  },
  {
    name: 'PUBLIC_BASE_URL',
    kind: 'url',
    description:
      "https:// address clients reach the API at (behind a load balancer: its public name), for absolute URLs in responses; never the request's Host header. Unset: https://localhost:HTTPS_PORT.",
  },
  {
    name: 'TRUST_PROXY',
    kind: 'bool',
    default: 'false',
    description: 'Honour X-Forwarded-Proto/For from a TLS-terminating proxy in front of the HTTP port.',
  },
  {
    name: 'APP_SECRET',
    kind: 'string',
    secret: true,
    description:
      'Key for token encryption and signing (at least 32 characters). Unset: generated once into DATA_DIR/app-secret.',
  },
  {
    name: 'DATABASE_URL',
    kind: 'url',
    secret: true,
    description:
      'postgres:// URL of the database. Unset: embedded PGlite in DATA_DIR/pglite served over the Postgres wire protocol.',
  },
  {
    name: 'DATABASE_POOL_SIZE',
    kind: 'int',
    default: '10',
    description: 'Maximum connections per process (the embedded PGlite uses 1).',
  },
] as const satisfies readonly ConfigVariable[];
