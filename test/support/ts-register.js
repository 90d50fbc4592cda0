// `node -r ./test/support/ts-register.js some/file.ts`: runs the TypeScript sources directly, as
// Jest does (same swc options, the @docqa/* path aliases of tsconfig.json). Used to run a worker
// in a child process that a test can SIGKILL.
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const swc = require('@swc/core');

const ROOT = path.resolve(__dirname, '../..');
const { paths } = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions;
const aliases = Object.entries(paths).map(([alias, [target]]) =>
  alias.endsWith('/*')
    ? { prefix: alias.slice(0, -1), target: path.join(ROOT, target.slice(0, -1)) }
    : { exact: alias, target: path.join(ROOT, target) },
);

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  for (const a of aliases) {
    if (a.exact === request) return resolve.call(this, a.target, ...rest);
    if (a.prefix && request.startsWith(a.prefix))
      return resolve.call(this, a.target + request.slice(a.prefix.length), ...rest);
  }
  return resolve.call(this, request, ...rest);
};

require.extensions['.ts'] = function (mod, filename) {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  });
  mod._compile(code, filename);
};
