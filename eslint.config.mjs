import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import boundaries from 'eslint-plugin-boundaries';
import layering from './scripts/lint/layering.js';
import browserGlobals from './scripts/lint/browser-globals.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'test/infra/elasticsearch/target/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    // One concern per file: a product source file over 450 lines is split by concern (issue 60,
    // docs/conventions.md). Specs and test/bench code are not product sources.
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'workflows/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'max-lines': ['error', { max: 450 }] },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false },
      sourceType: 'commonjs',
      globals: {
        fetch: 'readonly',
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Workflow code is deterministic: no Node built-ins, no activity implementations as values.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'crypto', 'os', 'http', 'https', 'child_process'],
              message: 'Workflow code must be deterministic: no Node built-ins.',
            },
          ],
        },
      ],
    },
  },
  // Server code never uses browser globals (the widget's DOM types are visible program-wide).
  browserGlobals.browserGlobalsConfig,
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Import layering (docs/conventions.md, scripts/lint/layering.js). Specs may also use test/support.
    files: ['**/*.ts'],
    plugins: { boundaries },
    settings: layering.layeringSettings,
    rules: { 'boundaries/dependencies': ['error', layering.layeringPolicies({ specs: false })] },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
    rules: { 'boundaries/dependencies': ['error', layering.layeringPolicies({ specs: true })] },
  },
);
