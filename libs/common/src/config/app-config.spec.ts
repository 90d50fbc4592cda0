import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError, loadConfig, publicBaseUrlOf } from './app-config';
import { renderConfigTable, renderEnvExample } from './config-docs';
import { CONFIG_VARIABLES } from './config.schema';

const ROOT = path.resolve(__dirname, '../../../..');

describe('loadConfig', () => {
  it('applies documented defaults', () => {
    const cfg = loadConfig({});
    expect(cfg.httpsPort).toBe(8443);
    expect(cfg.httpPort).toBe(8080);
    expect(cfg.trustProxy).toBe(false);
    expect(cfg.databaseUrl).toBeUndefined();
    expect(cfg.temporalTaskQueue).toBe('docqa-indexing');
    expect(path.isAbsolute(cfg.dataDir)).toBe(true);
  });

  it.each([
    ['HTTPS_PORT', 'abc', /HTTPS_PORT="abc" must be a port/],
    ['HTTP_PORT', '70000', /HTTP_PORT/],
    ['TRUST_PROXY', 'maybe', /TRUST_PROXY="maybe" must be true or false/],
    ['ELASTICSEARCH_URL', 'not a url', /ELASTICSEARCH_URL=<redacted> must be an absolute URL/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL="loud" must be one of/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must be a postgres/],
    ['APP_SECRET', 'short', /APP_SECRET must be at least 32/],
    ['LOCAL_EMBEDDER_SESSIONS', '0', /LOCAL_EMBEDDER_SESSIONS="0" must be a positive integer/],
    ['LOCAL_EMBEDDER_SESSIONS', '65', /LOCAL_EMBEDDER_SESSIONS must be an integer 1-64/],
    ['LOCAL_EMBEDDER_BATCH_SIZE', '257', /LOCAL_EMBEDDER_BATCH_SIZE must be an integer 1-256/],
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
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://docs.example.com/' }).publicBaseUrl).toBe(
      'https://docs.example.com',
    );
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://Docs.Example.com:9443/qa//' }).publicBaseUrl).toBe(
      'https://docs.example.com:9443/qa',
    );
    for (const bad of [
      'http://docs.example.com',
      'docs.example.com',
      'https://a.example/?x=1',
      'https://u:p@a.example',
    ])
      expect(() => loadConfig({ PUBLIC_BASE_URL: bad })).toThrow(/PUBLIC_BASE_URL/);
    expect(publicBaseUrlOf(loadConfig({ HTTPS_PORT: '9443' }))).toBe('https://localhost:9443');
    expect(publicBaseUrlOf(loadConfig({ HTTPS_PORT: '0' }), 41234)).toBe('https://localhost:41234');
  });

  it('parses booleans and integers', () => {
    const cfg = loadConfig({ TRUST_PROXY: 'yes', MAX_BODY_BYTES: '2048', S3_FORCE_PATH_STYLE: '1' });
    expect(cfg.trustProxy).toBe(true);
    expect(cfg.maxBodyBytes).toBe(2048);
    expect(cfg.s3ForcePathStyle).toBe(true);
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
