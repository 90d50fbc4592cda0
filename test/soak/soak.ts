// The soak of issue #13: the product as `npm start` runs it (PGlite, its own Temporal dev server,
// the worker in-process; the embedded search engine or Elasticsearch), three accounts indexing at
// once (the dev corpus, the similar corpus, a bucket of malformed files) through cancels followed
// by an immediate re-index, forced re-indexes and deletes during indexing, with an ask every second
// for each account and health and Temporal watched throughout. It collects problems instead of
// failing at the first one, so a report says everything that went wrong in a run.
// Parts: corpora.ts (the corpora and buckets), cycles.ts (the indexing operations), asks.ts (the
// question load), watch.ts (health and Temporal), report.ts (the end checks and the report).
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { TEMPORAL_UI_PORT_OFFSET } from '@docqa/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestClient } from '../support/http';
import { infra, uniqueName } from '../support/infra';
import { Product, registerAccount, startProduct } from '../support/product';
import { askLoad } from './asks';
import { Account, Engine, Soak } from './context';
import { bucketOf, Corpus } from './corpora';
import { indexingCycles } from './cycles';
import { checkFinalState, productLogFindings, SoakReport } from './report';
import { healthWatch } from './watch';
const { freePortPair } = require('../infra/util');

export type { Engine } from './context';
export { type Corpus, soakCorpora } from './corpora';
export type { SoakReport } from './report';

/**
 * Embedder of the soak (DOCQA_SOAK_EMBEDDER): the hashing embedder by default, as in the other
 * suites about indexing mechanics. What the soak tests (engine writes, locks, deadlines,
 * cancellation, slots, health, shutdown) does not depend on the vectors, and with the MiniLM model
 * one dev-corpus run takes minutes on a 2-core machine, leaving no time for the cycles. `minilm`
 * runs it on the semantic model (give it DOCQA_SOAK_RUN_LIMIT_SECONDS=900).
 */
const EMBEDDER = process.env.DOCQA_SOAK_EMBEDDER ?? 'hashing';
/**
 * Options of the product's node process (DOCQA_SOAK_NODE_ARGS, space-separated), e.g.
 * `--cpu-prof --cpu-prof-dir=DIR` to see what held its event loop in a stall.
 */
const NODE_ARGS = (process.env.DOCQA_SOAK_NODE_ARGS ?? '').split(' ').filter(Boolean);

export interface SoakOptions {
  engine: Engine;
  /** How long operations are started (the soak then lets every run end and checks the result). */
  seconds: number;
  corpora: Corpus[];
  log?: (line: string) => void;
}

/** Runs one soak and returns its report (problems empty when every check held). */
export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const log = o.log ?? (() => undefined);
  const problems: string[] = [];
  const problem = (p: string) => {
    problems.push(p);
    log(`PROBLEM ${p}`);
  };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `docqa-soak-${o.engine}-`));
  const temporalPort: number = await freePortPair(TEMPORAL_UI_PORT_OFFSET);
  const env: Record<string, string | undefined> = {
    DATA_DIR: dataDir,
    LOG_FILE: path.join(dataDir, 'app.log'),
    HTTPS_PORT: '0',
    HTTP_PORT: '0',
    METRICS_PORT: '0',
    BIND_HOST: '127.0.0.1',
    TEMPORAL_CLI_PATH: infra().temporalCli,
    TEMPORAL_DEV_PORT: String(temporalPort),
    S3_ENDPOINT: infra().s3Endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    S3_REGION: 'us-east-1',
    LOCAL_EMBEDDER: EMBEDDER,
    ...(o.engine === 'elasticsearch'
      ? { ELASTICSEARCH_URL: infra().elasticsearchUrl, SEARCH_INDEX_PREFIX: uniqueName('soak') }
      : {}),
  };

  // Buckets first (uploads are slow on a loaded machine; both engines' soaks read the same ones).
  const buckets: string[] = [];
  for (const corpus of o.corpora) buckets.push(await bucketOf(corpus));
  let product: Product | undefined = await startProduct(env, undefined, NODE_ARGS);
  // A product that dies under the soak says why on its own output (a fatal error, a signal).
  const started = product;
  let shuttingDown = false;
  started.child.once('exit', (code, signal) => {
    if (!shuttingDown)
      problem(`the product exited (code ${code}, signal ${signal}): ${started.output().slice(-3000)}`);
  });
  const c: TestClient = product.client;
  const connection = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
  const temporal = new TemporalClient({ connection });

  const accounts: Account[] = [];
  for (const [i, corpus] of o.corpora.entries())
    accounts.push({
      corpus,
      token: await registerAccount(c, corpus.name),
      docSet: `soak-${corpus.name}`,
      bucket: buckets[i],
    });

  // The operator's view (metrics port, from the product's log) explains a 503 in the soak log.
  const metricsPort = /Prometheus metrics on http:\/\/[^:]+:(\d+)/.exec(
    fs.readFileSync(env.LOG_FILE!, 'utf8'),
  )?.[1];
  let stopping = false;
  const until = Date.now() + o.seconds * 1000;
  const soak: Soak = { c, log, problem, stopping: () => stopping };
  const cycles = indexingCycles(soak, until);
  const asks = askLoad(soak, accounts);
  const watch = healthWatch(soak, temporal, metricsPort);

  const background = [asks.run(), watch.run()];
  await Promise.all(accounts.map((a, i) => cycles.accountLoop(a, i)));
  stopping = true;
  await Promise.all(background);

  // Every file ended where it should; the similar corpus is fully indexed.
  const final = await checkFinalState(soak, accounts);

  await connection.close();
  shuttingDown = true;
  const shutdown = await product.stop('SIGINT', 45_000);
  product = undefined;
  if (shutdown.code !== 0 || shutdown.ms > 30_000)
    problem(`Ctrl-C: exit ${shutdown.code} after ${shutdown.ms} ms`);
  const { stalls, slowestAsks, slowestReads } = productLogFindings(dataDir, problems.length > 0, log);
  fs.rmSync(dataDir, { recursive: true, force: true });

  const { health, stuckObservations, heartbeatTimeouts } = watch.summary();
  return {
    engine: o.engine,
    problems,
    operations: cycles.operations,
    runsChecked: cycles.runsChecked(),
    asks: asks.summary(),
    health,
    stuckObservations,
    heartbeatTimeouts,
    stalls,
    slowestAsks,
    slowestReads,
    final,
    shutdown,
  };
}
