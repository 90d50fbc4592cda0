import { bundleWorkflowCode, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
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

/** Bundles the workflows as the worker would at start and writes the bundle (atomically) to `file`. */
export async function writeWorkflowBundle(file = PREBUILT_WORKFLOW_BUNDLE): Promise<{ bytes: number }> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: new DefaultLogger('WARN'),
    ...WORKFLOW_BUNDLER_OPTIONS,
  });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, code);
  fs.renameSync(tmp, file);
  return { bytes: Buffer.byteLength(code) };
}

function newestMtimeMs(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtimeMs(p));
    else newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

export interface WorkflowCode {
  options: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'bundlerOptions'>;
  /** For the start-up log line. */
  description: string;
}

/**
 * The worker's workflow code: the prebuilt bundle when it is at least as new as every file it is
 * made of; otherwise the worker bundles at start. Bundling loads webpack and compiles for seconds,
 * much of it synchronously, which stalled the service's event loop for 3.5 s at every start of the
 * one-process service (docs/decisions.md).
 */
export function workflowCode(file = PREBUILT_WORKFLOW_BUNDLE, sources = BUNDLED_DIRS): WorkflowCode {
  const atStart: WorkflowCode['options'] = {
    workflowsPath: WORKFLOWS_PATH,
    bundlerOptions: WORKFLOW_BUNDLER_OPTIONS,
  };
  if (!fs.existsSync(file)) return { options: atStart, description: 'bundled at start (no prebuilt bundle)' };
  const built = fs.statSync(file).mtimeMs;
  if (sources.some((dir) => fs.existsSync(dir) && newestMtimeMs(dir) > built))
    return {
      options: atStart,
      description: `bundled at start (${file} is older than the compiled workflows: run npm run build)`,
    };
  return { options: { workflowBundle: { codePath: file } }, description: `the prebuilt bundle ${file}` };
}
