import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  installedVersions,
  sourcesFingerprint,
  workflowCode,
  WORKFLOWS_PATH,
  writeWorkflowBundle,
} from './workflow-bundle';

const HISTORIES = path.resolve(__dirname, '../../../test/fixtures/workflow-histories');
const noop = () => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };

describe('prebuilt workflow bundle', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bundle-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes a bundle a worker runs: a recorded history replays on it', async () => {
    const file = path.join(dir, 'workflows.bundle.js');
    const sources = path.join(dir, 'compiled');
    fs.mkdirSync(sources);
    fs.writeFileSync(path.join(sources, 'index.js'), 'exports.a = 1;');
    const { bytes } = await writeWorkflowBundle(file, [sources]);
    expect(fs.statSync(file).size).toBe(bytes);
    expect(fs.readdirSync(dir).sort()).toEqual([
      'compiled',
      'workflows.bundle.js',
      'workflows.bundle.js.sources',
    ]);
    const history = temporal.api.history.v1.History.decode(
      fs.readFileSync(path.join(HISTORIES, 'index-document-three-steps.binpb')),
    );
    const code = workflowCode(file, [sources]);
    expect(code.options).toEqual({ workflowBundle: { codePath: file } });
    await expect(
      Worker.runReplayHistory({ ...code.options, logger: quietLogger } as never, history),
    ).resolves.toBeUndefined();
  }, 120_000);

  it('bundles at start when there is no prebuilt bundle, or it was built from other code', () => {
    const file = path.join(dir, 'workflows.bundle.js');
    const sources = path.join(dir, 'compiled');
    fs.mkdirSync(path.join(sources, 'nested'), { recursive: true });
    const workflowFile = path.join(sources, 'nested', 'index-docset.workflow.js');
    fs.writeFileSync(workflowFile, 'exports.v = 1;');
    fs.writeFileSync(path.join(sources, 'nested', 'index-docset.workflow.js.map'), '{}');

    const none = workflowCode(file, [sources]);
    expect(none.options).toMatchObject({ workflowsPath: WORKFLOWS_PATH });
    expect(none.options.workflowBundle).toBeUndefined();
    expect(none.description).toBe('bundled at start (no prebuilt bundle)');

    fs.writeFileSync(file, '// bundle');
    fs.writeFileSync(`${file}.sources`, sourcesFingerprint([sources]));
    expect(workflowCode(file, [sources]).options).toEqual({ workflowBundle: { codePath: file } });
    // Source maps do not count; file times do not either (a copy that resets them keeps the bundle).
    fs.writeFileSync(path.join(sources, 'nested', 'index-docset.workflow.js.map'), '{"changed":1}');
    fs.utimesSync(workflowFile, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    expect(workflowCode(file, [sources]).options).toEqual({ workflowBundle: { codePath: file } });

    // A workflow compiled after the bundle was written (tsc run without the bundling step).
    fs.writeFileSync(workflowFile, 'exports.v = 2;');
    const stale = workflowCode(file, [sources]);
    expect(stale.options).toMatchObject({ workflowsPath: WORKFLOWS_PATH });
    expect(stale.description).toMatch(/built from other workflow code or SDK: run npm run build/);
    // A new file counts too.
    fs.writeFileSync(workflowFile, 'exports.v = 1;');
    expect(workflowCode(file, [sources]).options.workflowBundle).toBeDefined();
    fs.writeFileSync(path.join(sources, 'extra.workflow.js'), '');
    expect(workflowCode(file, [sources]).options.workflowBundle).toBeUndefined();
  });

  it("counts the bundled packages' versions: a bundle made with another SDK version is stale", () => {
    const file = path.join(dir, 'workflows.bundle.js');
    const sources = path.join(dir, 'compiled');
    fs.mkdirSync(sources);
    fs.writeFileSync(path.join(sources, 'index.js'), 'exports.v = 1;');
    expect(installedVersions(['@temporalio/workflow', 'no-such-package-docqa'])).toEqual([
      `@temporalio/workflow@${require('@temporalio/workflow/package.json').version}`,
      'no-such-package-docqa@missing',
    ]);
    // Written with the SDK as installed, then read with a package set that differs (as after an
    // upgrade: the installed versions are no longer the ones the digest was made with).
    fs.writeFileSync(file, '// bundle');
    fs.writeFileSync(`${file}.sources`, sourcesFingerprint([sources], ['@temporalio/workflow']));
    expect(workflowCode(file, [sources], ['@temporalio/workflow']).options.workflowBundle).toBeDefined();
    expect(
      workflowCode(file, [sources], ['@temporalio/workflow', '@temporalio/common']).options.workflowBundle,
    ).toBeUndefined();
    expect(sourcesFingerprint([sources], ['@temporalio/workflow'])).not.toBe(
      sourcesFingerprint([sources], ['no-such-package-docqa']),
    );
  });
});
