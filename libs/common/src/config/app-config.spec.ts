import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError, loadConfig, publicBaseUrlOf, withConfig } from './app-config';
import { renderConfigTable, renderEnvExample } from './config-docs';
import { CONFIG_VARIABLES } from './config.schema';

const ROOT = path.resolve(__dirname, '../../../..');

describe('loadConfig', () => {
  it('applies documented defaults', () => {
    const cfg = loadConfig({});
    expect(cfg.server.httpsPort).toBe(8443);
    expect(cfg.server.httpPort).toBe(8080);
    expect(cfg.server.trustProxy).toBe(false);
    expect(cfg.database.url).toBeUndefined();
    expect(cfg.database.poolSize).toBe(10);
    expect(cfg.temporal.taskQueue).toBe('docqa-indexing');
    expect(path.isAbsolute(cfg.core.dataDir)).toBe(true);
    expect(cfg.core.shutdownTimeoutMs).toBe(25000);
    expect(cfg.search).toMatchObject({
      indexPrefix: 'docqa-chunks',
      readTimeoutMs: 10000,
      writeTimeoutMs: 120000,
      lockTimeoutMs: 60000,
      maintenanceTimeoutMs: 600000,
    });
    expect(cfg.temporal).toMatchObject({ devPort: 7233, uiPort: 8233 });
    expect(cfg.models.llmThreads).toBeUndefined();
    expect(cfg.indexing).toMatchObject({
      concurrency: undefined,
      maxFileBytes: 104857600,
      unavailableRetryMs: 15000,
    });
    expect(cfg.models).toMatchObject({ answerProvider: 'auto', localEmbedder: 'auto', llmTimeoutMs: 120000 });
    expect(cfg.mail.from).toBe('DocQA <no-reply@docqa.invalid>');
    expect(cfg.metrics).toEqual({ enabled: true, port: 9464, host: '127.0.0.1' });
    expect(cfg.accounts.requireTermsOfService).toBe(false);
  });

  it('derives the search waits and the first unavailable retry from SEARCH_WRITE_TIMEOUT_MS', () => {
    const cfg = loadConfig({ SEARCH_WRITE_TIMEOUT_MS: '8000' });
    expect(cfg.search).toMatchObject({
      writeTimeoutMs: 8000,
      lockTimeoutMs: 4000,
      maintenanceTimeoutMs: 40000,
    });
    expect(cfg.indexing.unavailableRetryMs).toBe(1000);
    expect(loadConfig({ SEARCH_WRITE_TIMEOUT_MS: '1' }).search.lockTimeoutMs).toBe(1);
    expect(loadConfig({ SEARCH_WRITE_TIMEOUT_MS: '1' }).indexing.unavailableRetryMs).toBe(1);
  });

  it('puts the embedded Temporal Web UI 1000 above TEMPORAL_DEV_PORT, and refuses a port that leaves no room', () => {
    expect(loadConfig({ TEMPORAL_DEV_PORT: '27233' }).temporal.uiPort).toBe(28233);
    expect(() => loadConfig({ TEMPORAL_DEV_PORT: '65000' })).toThrow(ConfigError);
    expect(() => loadConfig({ TEMPORAL_DEV_PORT: '65000' })).toThrow(
      /TEMPORAL_DEV_PORT=65000 leaves no Web UI port/,
    );
  });

  it('ignores removed variables: their values come from the rule that replaced them', () => {
    const cfg = loadConfig({
      TEMPORAL_UI_PORT: '9999',
      SEARCH_LOCK_TIMEOUT_MS: '5',
      SEARCH_MAINTENANCE_TIMEOUT_MS: '5',
      INDEXING_UNAVAILABLE_RETRY_MS: '5',
      LLM_THREADS: '7',
      MEMORY_ALLOCATOR: 'tcmalloc',
    });
    expect(cfg.temporal.uiPort).toBe(8233);
    expect(cfg.search).toMatchObject({ lockTimeoutMs: 60000, maintenanceTimeoutMs: 600000 });
    expect(cfg.indexing.unavailableRetryMs).toBe(15000);
    expect(cfg.models.llmThreads).toBeUndefined();
    expect(CONFIG_VARIABLES.map((v) => v.name)).not.toContain('MEMORY_ALLOCATOR');
  });

  it('declares at most 60 operator settings', () => {
    expect(CONFIG_VARIABLES.length).toBeLessThanOrEqual(60);
  });

  it.each([
    ['HTTPS_PORT', 'abc', /HTTPS_PORT="abc" must be a port/],
    ['HTTP_PORT', '70000', /HTTP_PORT/],
    ['TRUST_PROXY', 'maybe', /TRUST_PROXY="maybe" must be true or false/],
    ['ELASTICSEARCH_URL', 'not a url', /ELASTICSEARCH_URL=<redacted> must be an absolute URL/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL="loud" must be one of/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must be a postgres/],
    ['APP_SECRET', 'short', /APP_SECRET must be at least 32/],
    ['SEARCH_READ_TIMEOUT_MS', '0', /SEARCH_READ_TIMEOUT_MS="0" must be a positive integer/],
    ['INDEXING_CONCURRENCY', '-3', /INDEXING_CONCURRENCY="-3" must be a positive integer/],
    ['ANSWER_PROVIDER', 'gpt', /ANSWER_PROVIDER="gpt" must be one of auto, extractive/],
    ['METRICS_ENABLED', 'perhaps', /METRICS_ENABLED="perhaps" must be true or false/],
    ['OPENAI_BASE_URL', 'llm.internal', /OPENAI_BASE_URL="llm.internal" must be an absolute URL/],
    ['DATA_DIR', '   ', /DATA_DIR=" {3}" must not be empty/],
  ])('fails at boot naming %s for a bad value', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('never echoes a secret value in its error', () => {
    try {
      loadConfig({ DATABASE_URL: 'postgres://u:hunter2@host/db', DATABASE_POOL_SIZE: 'x' });
    } catch (err) {
      expect(String(err)).not.toContain('hunter2');
    }
    expect(() => loadConfig({ SMTP_URL: 'hunter2 secret' })).toThrow(/SMTP_URL=<redacted>/);
  });

  it('requires the TLS pair together', () => {
    expect(() => loadConfig({ TLS_CERT_FILE: '/x.pem' })).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE/);
  });

  it('PUBLIC_BASE_URL: an https:// address, normalised; unset means the local HTTPS address', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://docs.example.com/' }).server.publicBaseUrl).toBe(
      'https://docs.example.com',
    );
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://Docs.Example.com:9443/qa//' }).server.publicBaseUrl).toBe(
      'https://docs.example.com:9443/qa',
    );
    for (const bad of [
      'http://docs.example.com',
      'docs.example.com',
      'https://a.example/?x=1',
      'https://u:p@a.example',
    ])
      expect(() => loadConfig({ PUBLIC_BASE_URL: bad })).toThrow(/PUBLIC_BASE_URL/);
    expect(publicBaseUrlOf(loadConfig({ HTTPS_PORT: '9443' }).server)).toBe('https://localhost:9443');
    expect(publicBaseUrlOf(loadConfig({ HTTPS_PORT: '0' }).server, 41234)).toBe('https://localhost:41234');
  });

  it('parses booleans and integers', () => {
    const cfg = loadConfig({
      TRUST_PROXY: 'yes',
      MAX_BODY_BYTES: '2048',
      INDEXING_CONCURRENCY: '8',
      S3_FORCE_PATH_STYLE: '1',
    });
    expect(cfg.sources.s3ForcePathStyle).toBe(true);
    expect(cfg.server.trustProxy).toBe(true);
    expect(cfg.server.maxBodyBytes).toBe(2048);
    expect(cfg.indexing.concurrency).toBe(8);
  });

  it('resolves paths while building: DATA_DIR and LLM_MODEL_PATH are absolute', () => {
    const cfg = loadConfig({ DATA_DIR: 'rel/data', LLM_MODEL_PATH: 'models/m.gguf' });
    expect(cfg.core.dataDir).toBe(path.resolve('rel/data'));
    expect(cfg.models.llmModelPath).toBe(path.resolve('models/m.gguf'));
  });

  it('uploads are capped at INDEXING_MAX_FILE_BYTES', () => {
    expect(loadConfig({ INDEXING_MAX_FILE_BYTES: '1000' }).sources.uploadMaxFileBytes).toBe(1000);
  });

  it('is frozen: neither the whole nor a slice changes after load', () => {
    const cfg = loadConfig({});
    expect(Object.isFrozen(cfg)).toBe(true);
    for (const slice of Object.values(cfg)) expect(Object.isFrozen(slice)).toBe(true);
    expect(() => {
      (cfg.server as { httpsPort: number }).httpsPort = 1;
    }).toThrow(TypeError);
    expect(cfg.server.httpsPort).toBe(8443);
  });

  it('withConfig makes a new frozen configuration and leaves the original as it was', () => {
    const cfg = loadConfig({});
    const next = withConfig(cfg, {
      database: { url: 'postgres://h/db', poolSize: 1 },
      mail: { retryBaseMs: 50 },
    });
    expect(next.database).toEqual({ url: 'postgres://h/db', poolSize: 1 });
    expect(next.mail.retryBaseMs).toBe(50);
    expect(next.server).toEqual(cfg.server);
    expect(cfg.database.url).toBeUndefined();
    expect(Object.isFrozen(next) && Object.isFrozen(next.database)).toBe(true);
  });
});

describe('configuration documents', () => {
  it('.env.example matches the schema', () => {
    expect(fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8')).toBe(renderEnvExample());
  });

  it('docs/configuration.md matches the schema', () => {
    expect(fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8')).toBe(renderConfigTable());
  });

  it('every variable in AppConfig comes from the schema and keeps the DESIGN.md names', () => {
    const names = CONFIG_VARIABLES.map((v) => v.name);
    for (const fixed of [
      'DATA_DIR',
      'HTTPS_PORT',
      'HTTP_PORT',
      'TLS_CERT_FILE',
      'TLS_KEY_FILE',
      'TRUST_PROXY',
      'APP_SECRET',
      'DATABASE_URL',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_NAMESPACE',
      'TEMPORAL_CLI_PATH',
      'ELASTICSEARCH_URL',
      'S3_ENDPOINT',
      'S3_REGION',
      'S3_FORCE_PATH_STYLE',
      'S3_BUCKET',
      'COHERE_API_KEY',
      'COHERE_BASE_URL',
      'SMTP_URL',
      'GRAPH_BASE_URL',
      'MS_AUTHORITY_HOST',
      'GOOGLE_API_ROOT_URL',
      'GOOGLE_TOKEN_URL',
    ]) {
      expect(names).toContain(fixed);
    }
  });
});
