// Two projects: `unit` (no services, specs next to the code) and `e2e` (real Postgres, Temporal and
// Elasticsearch started once per run by test/infra/global-setup).
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];
const libs = [
  'text',
  'common',
  'db',
  'catalog',
  'search',
  'cohere',
  'embeddings',
  'answers',
  'sources',
  'accounts',
  'rag',
  'indexing',
  'chatbot',
  'workflow-contract',
];
const moduleNameMapper = {};
for (const lib of libs) {
  moduleNameMapper[`^@docqa/${lib}$`] = `<rootDir>/libs/${lib}/src`;
  moduleNameMapper[`^@docqa/${lib}/(.*)$`] = `<rootDir>/libs/${lib}/src/$1`;
}
// marked ships ESM only ("type": "module"): on Node 24 Jest's require() loads it as Node does
// (require of ES modules). Its UMD build, which Jest used on Node 20, is ESM too there and exports nothing.
moduleNameMapper['^@docqa/workflows$'] = '<rootDir>/workflows/src';
moduleNameMapper['^@docqa/workflows/(.*)$'] = '<rootDir>/workflows/src/$1';

const base = { transform: { '^.+\\.(t|j)s$': swc }, moduleNameMapper, testEnvironment: 'node' };

/**
 * E2e suites that run alone (`npm test`'s second phase, DOCQA_JEST_PHASE=serial, one at a time):
 * they assert wall-clock bounds (an ask within 5 s, a stop within 30 s, an event-loop stall
 * counted), restart engines of their own, or start the whole product as a child process. The
 * first phase (DOCQA_JEST_PHASE=parallel) runs the unit suites and every other e2e suite two at a
 * time: each has its own database, Elasticsearch alias, task queue and, per Jest worker, Temporal
 * namespace (test/support). Without DOCQA_JEST_PHASE every suite is selected, as before.
 */
const SERIAL_E2E = [
  'test/soak/',
  'test/faults/',
  'test/indexing/wedged-engine',
  'test/indexing/ctrl-c-while-indexing',
  'test/search/embedded-engine-stall',
  'test/models/embedder',
  'test/operations/embedded-database',
  'test/operations/docker',
  'test/foundation/npm-start',
  'test/ask/local-llm',
  'test/security/',
].map((p) => `<rootDir>/${p}`);
const phase = process.env.DOCQA_JEST_PHASE;
if (phase && !['parallel', 'serial'].includes(phase))
  throw new Error(`DOCQA_JEST_PHASE must be parallel or serial, not ${phase}`);
const e2eMatch = ['<rootDir>/test/**/*.e2e-spec.ts'];
const e2eSuites =
  phase === 'serial'
    ? { testMatch: SERIAL_E2E.map((p) => `${p}${p.endsWith('/') ? '**/' : ''}*.e2e-spec.ts`) }
    : phase === 'parallel'
      ? { testMatch: e2eMatch, testPathIgnorePatterns: ['/node_modules/', ...SERIAL_E2E] }
      : { testMatch: e2eMatch };
const e2e = {
  ...base,
  globalSetup: '<rootDir>/test/infra/global-setup.js',
  globalTeardown: '<rootDir>/test/infra/global-teardown.js',
};

module.exports = {
  // e2e tests drive real engines; unit tests finish far below this.
  testTimeout: 120000,
  // `npm test` runs suites in worker processes (two, then one), which Jest replaces once their heap
  // exceeds this after a suite. In band (--runInBand) the 120-odd suites' module registries and
  // engines piled up in one process until it ran out of heap (a CI run aborted).
  workerIdleMemoryLimit: '1.5GB',
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,workflows,bench,scripts}/**/*.spec.ts'],
    },
    { ...e2e, ...e2eSuites, displayName: 'e2e' },
  ],
};
