// The widget (apps/api/src/widget/widget.client.ts) is browser code typed against the DOM library,
// which its `/// <reference lib="dom" />` brings into the whole TypeScript program. Server code
// that used a browser global would then compile and fail at run time: lint forbids them outside
// the widget. scripts/lint/browser-globals.spec.ts checks that it does.

const BROWSER_GLOBALS = [
  'window',
  'document',
  'navigator',
  'location',
  'localStorage',
  'sessionStorage',
  'getComputedStyle',
  'alert',
  'confirm',
  'prompt',
  'self',
];

/** Files that run in the browser and may use its globals. */
const BROWSER_FILES = ['apps/api/src/widget/widget.client.ts'];

/** The eslint config block (eslint.config.mjs). */
const browserGlobalsConfig = {
  files: ['apps/**/*.ts', 'libs/**/*.ts', 'workflows/**/*.ts', 'scripts/**/*.ts'],
  ignores: BROWSER_FILES,
  rules: {
    'no-restricted-globals': [
      'error',
      ...BROWSER_GLOBALS.map((name) => ({
        name,
        message: `${name} is a browser global: server code runs in Node (only ${BROWSER_FILES.join(', ')} runs in browsers).`,
      })),
    ],
  },
};

module.exports = { BROWSER_GLOBALS, BROWSER_FILES, browserGlobalsConfig };
