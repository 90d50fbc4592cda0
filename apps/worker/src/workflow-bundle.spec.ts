import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { workflowCode, WORKFLOWS_PATH, writeWorkflowBundle } from './workflow-bundle';

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
    const { bytes } = await writeWorkflowBundle(file);
    expect(fs.statSync(file).size).toBe(bytes);
    expect(fs.readdirSync(dir)).toEqual(['workflows.bundle.js']);
    const history = temporal.api.history.v1.History.decode(
      fs.readFileSync(path.join(HISTORIES, 'index-document-three-steps.binpb')),
    );
    const code = workflowCode(file, [path.join(dir, 'no-such-dir')]);
    expect(code.options).toEqual({ workflowBundle: { codePath: file } });
    await expect(
      Worker.runReplayHistory({ ...code.options, logger: quietLogger } as never, history),
    ).resolves.toBeUndefined();
  }, 120_000);

  it('bundles at start when there is no prebuilt bundle, or it is older than the compiled workflows', () => {
    const file = path.join(dir, 'workflows.bundle.js');
    const compiled = path.join(dir, 'compiled', 'nested');
    fs.mkdirSync(compiled, { recursive: true });
    const workflowFile = path.join(compiled, 'index-docset.workflow.js');
    fs.writeFileSync(workflowFile, '');

    const none = workflowCode(file, [path.join(dir, 'compiled')]);
    expect(none.options).toMatchObject({ workflowsPath: WORKFLOWS_PATH });
    expect(none.options.workflowBundle).toBeUndefined();
    expect(none.description).toBe('bundled at start (no prebuilt bundle)');

    fs.writeFileSync(file, '// bundle');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(workflowFile, past, past);
    expect(workflowCode(file, [path.join(dir, 'compiled')]).options).toEqual({
      workflowBundle: { codePath: file },
    });

    // A workflow compiled after the bundle was written (tsc run without the bundling step).
    fs.utimesSync(workflowFile, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    const stale = workflowCode(file, [path.join(dir, 'compiled')]);
    expect(stale.options).toMatchObject({ workflowsPath: WORKFLOWS_PATH });
    expect(stale.description).toMatch(/older than the compiled workflows: run npm run build/);
  });
});
