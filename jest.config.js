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
  'common',
  'db',
  'catalog',
  'search',
  'llm',
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
// marked ships ESM only; Node (>= 20.19) can require() it, Jest's CommonJS runtime cannot: use its UMD build.
moduleNameMapper['^marked$'] = '<rootDir>/node_modules/marked/lib/marked.umd.js';
moduleNameMapper['^@docqa/workflows$'] = '<rootDir>/workflows/src';
moduleNameMapper['^@docqa/workflows/(.*)$'] = '<rootDir>/workflows/src/$1';

const base = { transform: { '^.+\\.(t|j)s$': swc }, moduleNameMapper, testEnvironment: 'node' };

module.exports = {
  // e2e tests drive real engines; unit tests finish far below this.
  testTimeout: 120000,
  // `npm test` runs one suite at a time in one worker process (--maxWorkers=1), which Jest replaces
  // once its heap exceeds this after a suite. In band (--runInBand) the 120-odd suites' module
  // registries and engines piled up in one process until it ran out of heap (a CI run aborted).
  workerIdleMemoryLimit: '1.5GB',
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,workflows,bench,scripts}/**/*.spec.ts'],
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/infra/global-setup.js',
      globalTeardown: '<rootDir>/test/infra/global-teardown.js',
    },
  ],
};
