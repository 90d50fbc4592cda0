import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { Client } from 'pg';

/**
 * This Jest worker's namespace on the shared server (test/infra/temporal.js `workerNamespaces`);
 * outside Jest (the eval and RAG benches' harness), worker 1's, which the harness creates.
 * Named as test/infra/temporal.js `workerNamespace` names it (not required from there: this file
 * is also compiled into the eval's dist, which holds no test/infra).
 */
export function temporalNamespace(): string {
  return `docqa-test-${process.env.JEST_WORKER_ID ?? '1'}`;
}

/** Addresses of the engines started by test/infra/global-setup.js. */
export function infra() {
  const need = (name: string) => {
    const v = process.env[name];
    if (!v)
      throw new Error(
        `${name} is not set: run e2e tests through jest's e2e project (test/infra/global-setup.js)`,
      );
    return v;
  };
  return {
    postgresUrl: need('DOCQA_TEST_POSTGRES_URL'),
    temporalAddress: need('DOCQA_TEST_TEMPORAL_ADDRESS'),
    temporalCli: need('DOCQA_TEST_TEMPORAL_CLI'),
    temporalNamespace: temporalNamespace(),
    elasticsearchUrl: need('DOCQA_TEST_ELASTICSEARCH_URL'),
    /** Local S3-compatible server (test/infra/s3.js). */
    s3Endpoint: need('DOCQA_TEST_S3_ENDPOINT'),
  };
}

/** A fresh, empty database in the test cluster, so each suite has its own schema and data. */
export async function createTestDatabase(prefix = 't'): Promise<string> {
  const admin = infra().postgresUrl;
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const c = new Client({ connectionString: admin });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A unique name per test, for task queues, index prefixes, docsets and workflow ids. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/**
 * The shared material beside the repository (`../shared`: corpus, benchmarks, spec). CI clones the
 * repository with shared/ beside it; DOCQA_SHARED_DIR overrides.
 */
export function sharedDir(...parts: string[]): string {
  const base = process.env.DOCQA_SHARED_DIR ?? path.resolve(__dirname, '../../../shared');
  return path.join(base, ...parts);
}
