// The import layering of docs/conventions.md, checked by eslint-plugin-boundaries (eslint.config.mjs).
// A wrong-way import fails `npm run lint`; scripts/lint/layering.spec.ts checks that it still does.

/** Each lib and the libs it may import (value or type). Anything not listed is a wrong-way import. */
const LIB_IMPORTS = {
  // Language rules (text analysis): a leaf every other lib may use; it imports nothing of ours.
  text: [],
  'workflow-contract': [],
  common: ['text', 'workflow-contract'],
  db: ['text', 'common', 'workflow-contract'],
  catalog: ['text', 'common', 'db', 'workflow-contract'],
  search: ['text', 'common', 'db', 'workflow-contract'],
  // The Cohere v2 client and its retry policy, shared by the Cohere embedder and the Cohere answer models.
  cohere: ['text', 'common', 'workflow-contract'],
  // catalog: which model the install's documents are embedded by (LOCAL_EMBEDDER=auto).
  embeddings: ['text', 'common', 'db', 'catalog', 'workflow-contract', 'cohere'],
  answers: ['text', 'common', 'db', 'workflow-contract', 'cohere'],
  sources: ['text', 'common', 'db', 'catalog', 'workflow-contract'],
  accounts: ['text', 'common', 'db', 'catalog', 'workflow-contract'],
  rag: [
    'text',
    'common',
    'db',
    'catalog',
    'workflow-contract',
    'search',
    'cohere',
    'embeddings',
    'answers',
    'sources',
    'accounts',
  ],
  indexing: [
    'text',
    'common',
    'db',
    'catalog',
    'workflow-contract',
    'search',
    'embeddings',
    'sources',
    'accounts',
  ],
  chatbot: [
    'text',
    'common',
    'db',
    'catalog',
    'workflow-contract',
    'search',
    'cohere',
    'embeddings',
    'answers',
    'sources',
    'accounts',
    'rag',
  ],
};

const lib = (name) => `lib-${name}`;
const ALL_LIBS = Object.keys(LIB_IMPORTS).map(lib);
const API_PARTS = ['api-common', 'api-bootstrap', 'api-surface', 'app-api'];

const layeringSettings = {
  'import/resolver': { typescript: { project: './tsconfig.json' }, node: true },
  'boundaries/elements': [
    ...Object.keys(LIB_IMPORTS).map((name) => ({ type: lib(name), pattern: `libs/${name}` })),
    { type: 'workflows', pattern: 'workflows' },
    // apps/api: one folder per surface; shared pieces in common/; bootstrap/ and the top-level files compose.
    { type: 'api-common', pattern: 'apps/api/src/common' },
    { type: 'api-bootstrap', pattern: 'apps/api/src/bootstrap' },
    { type: 'api-surface', pattern: 'apps/api/src/*', capture: ['surface'] },
    { type: 'app-api', pattern: 'apps/api' },
    { type: 'app-worker', pattern: 'apps/worker' },
    { type: 'test', pattern: 'test' },
    { type: 'bench', pattern: 'bench' },
  ],
};

const allow = (from, to, kind) => ({
  from: { element: { type: from } },
  allow: { to: { element: { type: to } }, ...(kind ? { dependency: { kind } } : {}) },
});

/** `specs`: the rule options for unit and e2e specs, which may also import test/support. */
function layeringPolicies({ specs }) {
  const policies = [
    ...Object.entries(LIB_IMPORTS).flatMap(([name, deps]) => deps.map((dep) => allow(lib(name), lib(dep)))),
    // Workflow code is bundled and deterministic: values from the contract only, activity types from indexing.
    allow('workflows', lib('workflow-contract')),
    allow('workflows', lib('indexing'), 'type'),
    // Entry points compose everything; the API's standalone mode embeds the worker module. A surface
    // of the API never imports another surface (shared pieces go to apps/api/src/common or a lib).
    ...API_PARTS.flatMap((from) => ALL_LIBS.map((to) => allow(from, to))),
    ...ALL_LIBS.map((to) => allow('app-worker', to)),
    ...['api-surface', 'api-bootstrap', 'app-api'].map((from) => allow(from, 'api-common')),
    ...['api-bootstrap', 'app-api'].flatMap((from) =>
      ['api-surface', 'api-bootstrap'].map((to) => allow(from, to)),
    ),
    allow('api-bootstrap', 'app-api'),
    allow('app-api', 'app-worker'),
    // Tests and benchmarks drive the product from outside.
    ...['test', 'bench'].flatMap((from) =>
      [...ALL_LIBS, ...API_PARTS, 'workflows', 'app-worker', 'test'].map((to) => allow(from, to)),
    ),
    allow('bench', 'bench'),
  ];
  if (specs)
    policies.push(
      ...[...ALL_LIBS, ...API_PARTS, 'workflows', 'app-worker'].flatMap((from) => [
        allow(from, 'test'),
        ...(from === 'workflows' ? [allow(from, 'workflows')] : []),
      ]),
    );
  return {
    default: 'disallow',
    message: 'Wrong-way import: see the layering in docs/conventions.md (scripts/lint/layering.js).',
    policies,
  };
}

module.exports = { LIB_IMPORTS, layeringSettings, layeringPolicies };
