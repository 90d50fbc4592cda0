// Jest global setup of the e2e project: starts the real engines once per run and hands their
// addresses to the tests through environment variables (inherited by Jest workers).
const { startPostgres } = require('./postgres');
const { startTemporal, workerNamespaces } = require('./temporal');
const { startElasticsearch } = require('./elasticsearch');
const { startS3 } = require('./s3');
const { configureLanceRuntime } = require('../../libs/search/src/lance-runtime');
const { installModels } = require('../../scripts/models');

module.exports = async function globalSetup() {
  const t0 = Date.now();
  // What the embedded adapter does when it loads, done here in the real environment: Jest's
  // sandboxed process.env never reaches the engine's native code in the suites that embed it.
  configureLanceRuntime(process.env);
  // The semantic embedders: suites where retrieval quality matters run MiniLM for real, and
  // test/models runs bge-small-en-v1.5. Installed once into ~/.cache/docqa (seconds when cached).
  await installModels(['embedder', 'bge-small'], { log: (l) => console.log(`\n${l}`) });
  require('./jemalloc').ensureInstalled();
  const started = {};
  globalThis.__DOCQA_INFRA__ = started;
  // All four start together; when one fails, the others that did start are stopped again (a failed
  // setup runs no teardown, and they would outlive the run).
  const results = await Promise.allSettled([
    startPostgres(),
    startTemporal({ namespaces: workerNamespaces() }),
    startElasticsearch(),
    startS3(),
  ]);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.all(
      results.filter((r) => r.status === 'fulfilled').map((r) => r.value.stop().catch(() => undefined)),
    );
    throw failed.reason;
  }
  const [pg, temporal, es, s3] = results.map((r) => r.value);
  Object.assign(started, { pg, temporal, es, s3 });
  process.env.DOCQA_TEST_POSTGRES_URL = started.pg.url;
  process.env.DOCQA_TEST_TEMPORAL_ADDRESS = started.temporal.address;
  process.env.DOCQA_TEST_TEMPORAL_CLI = started.temporal.bin;
  process.env.DOCQA_TEST_ELASTICSEARCH_URL = started.es.url;
  process.env.DOCQA_TEST_S3_ENDPOINT = started.s3.url;
  console.log(
    `\n[infra] postgres ${started.pg.url}, temporal ${started.temporal.address}, elasticsearch ${started.es.url}, s3 ${started.s3.url} (${Date.now() - t0} ms)`,
  );
};
