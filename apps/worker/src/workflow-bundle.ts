import { bundleWorkflowCode, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Path of the workflow entry point, in source (ts-jest/swc) and in dist alike. */
export const WORKFLOWS_PATH = require.resolve(path.join(__dirname, '../../../workflows/src'));

/**
 * The one alias workflow code uses at runtime. Temporal's bundler ignores tsconfig paths; in dist,
 * tsc-alias has already made the import relative, so the alias only serves the sources (Jest).
 */
export const WORKFLOW_BUNDLER_OPTIONS: NonNullable<WorkerOptions['bundlerOptions']> = {
  webpackConfigHook: (config) => ({
    ...config,
    resolve: {
      ...config.resolve,
      alias: {
        ...config.resolve?.alias,
        '@docqa/workflow-contract$': path.join(__dirname, '../../../libs/workflow-contract/src'),
      },
    },
  }),
};

/**
 * Where `npm run build` writes the workflow bundle: beside this file in dist. Run from the sources
 * (Jest), the path names a file that is never written, so tests bundle the current sources.
 */
export const PREBUILT_WORKFLOW_BUNDLE = path.join(__dirname, 'workflows.bundle.js');

/** The compiled code the bundle is made of (besides node_modules). */
const BUNDLED_DIRS = [
  path.dirname(WORKFLOWS_PATH),
  path.join(__dirname, '../../../libs/workflow-contract/src'),
];

/**
 * The packages the bundle holds code of (the SDK's workflow side) or was made by (the bundler).
 * Their versions are part of the digest: an `npm ci` that upgrades the SDK makes the bundle stale.
 */
const BUNDLED_PACKAGES = [
  '@temporalio/workflow',
  '@temporalio/common',
  '@temporalio/proto',
  '@temporalio/worker',
];

/** `name@version` of each package, as installed; `name@missing` for one that is not. */
export function installedVersions(packages: string[]): string[] {
  return packages.map((name) => {
    try {
      const manifest = fs.readFileSync(require.resolve(`${name}/package.json`), 'utf8');
      return `${name}@${(JSON.parse(manifest) as { version: string }).version}`;
    } catch {
      return `${name}@missing`;
    }
  });
}

/** The file beside the bundle that names the sources it was built from. */
const fingerprintFile = (bundle: string) => `${bundle}.sources`;

/**
 * A digest of the code files under `dirs` (paths and contents) and of the bundled packages'
 * versions, for telling whether a bundle is current.
 */
export function sourcesFingerprint(dirs: string[], packages = BUNDLED_PACKAGES): string {
  const hash = createHash('sha256');
  for (const version of installedVersions(packages)) hash.update(`${version}\0`);
  const walk = (root: string, dir: string) => {
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(root, p);
      else if (/\.(js|ts)$/.test(e.name) && !e.name.endsWith('.d.ts')) {
        hash
          .update(`${path.relative(root, p)}\0`)
          .update(fs.readFileSync(p))
          .update('\0');
      }
    }
  };
  for (const dir of dirs) if (fs.existsSync(dir)) walk(dir, dir);
  return hash.digest('hex');
}

/**
 * Bundles the workflows as the worker would at start and writes the bundle to `file`, with the
 * fingerprint of the sources it was built from beside it (`<file>.sources`).
 */
export async function writeWorkflowBundle(
  file = PREBUILT_WORKFLOW_BUNDLE,
  sources = BUNDLED_DIRS,
  packages = BUNDLED_PACKAGES,
): Promise<{ bytes: number }> {
  const fingerprint = sourcesFingerprint(sources, packages);
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: new DefaultLogger('WARN'),
    ...WORKFLOW_BUNDLER_OPTIONS,
  });
  fs.rmSync(fingerprintFile(file), { force: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, code);
  fs.renameSync(tmp, file);
  fs.writeFileSync(fingerprintFile(file), fingerprint);
  return { bytes: Buffer.byteLength(code) };
}

export interface WorkflowCode {
  options: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'bundlerOptions'>;
  /** For the start-up log line. */
  description: string;
}

/**
 * The worker's workflow code: the prebuilt bundle when it was built from the compiled workflows
 * and contract and the SDK versions as they are now (by content, so copies that reset file times keep it); otherwise
 * the worker bundles at start. Bundling loads webpack and compiles for seconds, much of it
 * synchronously, which stalled the one-process service's event loop at every start
 * (docs/adr/0025).
 */
export function workflowCode(
  file = PREBUILT_WORKFLOW_BUNDLE,
  sources = BUNDLED_DIRS,
  packages = BUNDLED_PACKAGES,
): WorkflowCode {
  const atStart: WorkflowCode['options'] = {
    workflowsPath: WORKFLOWS_PATH,
    bundlerOptions: WORKFLOW_BUNDLER_OPTIONS,
  };
  let builtFrom: string;
  try {
    builtFrom = fs.readFileSync(fingerprintFile(file), 'utf8').trim();
  } catch {
    return { options: atStart, description: 'bundled at start (no prebuilt bundle)' };
  }
  if (!fs.existsSync(file)) return { options: atStart, description: 'bundled at start (no prebuilt bundle)' };
  if (builtFrom !== sourcesFingerprint(sources, packages))
    return {
      options: atStart,
      description: `bundled at start (${file} was built from other workflow code or SDK: run npm run build)`,
    };
  return { options: { workflowBundle: { codePath: file } }, description: `the prebuilt bundle ${file}` };
}
