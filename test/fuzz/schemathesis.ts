import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestApp } from '../support/app';

const { ensureInstalled } = require('../infra/schemathesis') as { ensureInstalled(): string };

export interface FuzzOptions {
  token: string;
  maxExamples: number;
  maxTimeSeconds: number;
  /** Operations left out (regular expression on "METHOD /path"). */
  excludeOperation?: string;
  seed?: number;
}

export interface FuzzResult {
  code: number | null;
  output: string;
  reportFile: string;
}

/**
 * Runs Schemathesis against the running app's own OpenAPI document (/api/docs-json), with TLS
 * verified against the app's CA (REQUESTS_CA_BUNDLE and --tls-verify) and the caller's bearer
 * token. Checks: no 5xx, and every response conforms to the documented schema of its status.
 */
export async function runSchemathesis(app: TestApp, o: FuzzOptions): Promise<FuzzResult> {
  const bin = ensureInstalled();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-fuzz-'));
  const reportFile = path.join(dir, 'junit.xml');
  const ca = app.api.tls.caFile;
  const args = [
    'run',
    `${app.client.baseUrl}/api/docs-json`,
    '--url',
    app.client.baseUrl,
    '--tls-verify',
    ca,
    '-H',
    `Authorization: Bearer ${o.token}`,
    '--checks',
    'not_a_server_error,response_schema_conformance',
    '--max-examples',
    String(o.maxExamples),
    '--max-time',
    String(o.maxTimeSeconds),
    '--workers',
    '1',
    '--request-timeout',
    '20',
    '--phases',
    'examples,coverage,fuzzing',
    '--suppress-health-check',
    'all',
    '--no-shrink',
    '--continue-on-failure',
    '--output-truncate',
    'true',
    '--report',
    'junit',
    '--report-junit-path',
    reportFile,
    '--seed',
    String(o.seed ?? 1234),
  ];
  if (o.excludeOperation) args.push('--exclude-name-regex', o.excludeOperation);
  const child = spawn(bin, args, {
    env: { ...process.env, REQUESTS_CA_BUNDLE: ca, SSL_CERT_FILE: ca, NO_COLOR: '1', PYTHONUNBUFFERED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: dir,
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  return { code, output: output.split(o.token).join('<token>'), reportFile };
}
