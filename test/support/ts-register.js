// Lets a plain `node` child process load the TypeScript sources the way Jest does (swc, CommonJS,
// decorators, @docqa/* aliases): `node -r test/support/ts-register.js some-script.ts`. Tests that
// must run product code in a real process (its own environment, native engines that can wedge,
// signals) use it instead of a build.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const ROOT = path.resolve(__dirname, '../..');

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const m = /^@docqa\/([^/]+)(\/.*)?$/.exec(request);
  if (m) {
    const base = m[1] === 'workflows' ? 'workflows/src' : `libs/${m[1]}/src`;
    request = path.join(ROOT, base, m[2] ?? '');
  }
  return resolveFilename.call(this, request, ...rest);
};

Module._extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
