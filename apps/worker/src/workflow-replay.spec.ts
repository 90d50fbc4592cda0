import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WORKFLOW_BUNDLER_OPTIONS, WORKFLOWS_PATH } from './workflow-bundle';

const HISTORIES = path.resolve(__dirname, '../../../test/fixtures/workflow-histories');
type History = temporal.api.history.v1.IHistory;
const { EventType } = temporal.api.enums.v1;
const history = (name: string): History =>
  temporal.api.history.v1.History.decode(fs.readFileSync(path.join(HISTORIES, name)));
const eventsOf = (h: History) => h.events ?? [];
const noop = () => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };

/**
 * Executions recorded by earlier versions of the workflows must replay on the current code
 * (determinism): a worker upgraded mid-run picks them up. Histories are real runs' histories
 * (WorkflowHandle.fetchHistory, encoded as temporal.api.history.v1.History protobuf).
 */
describe('workflow replay', () => {
  const replay = (h: History) =>
    Worker.runReplayHistory(
      {
        workflowsPath: WORKFLOWS_PATH,
        bundlerOptions: WORKFLOW_BUNDLER_OPTIONS,
        logger: quietLogger,
      } as never,
      h,
    );

  it('replays a document indexed in three steps before the small-document path (issue 17)', async () => {
    const h = history('index-document-three-steps.binpb');
    const types = eventsOf(h).map((e) => e.eventType);
    expect(types.filter((t) => t === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(3);
    expect(types).not.toContain(EventType.EVENT_TYPE_MARKER_RECORDED);
    await expect(replay(h)).resolves.toBeUndefined();
  }, 120_000);

  it('replays such a document caught between its steps when the worker was upgraded', async () => {
    const h = history('index-document-three-steps.binpb');
    // Up to the completion of the workflow task that scheduled indexDocumentChunks.
    const cut = eventsOf(h).findIndex(
      (e, i) => i > 4 && e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
    );
    expect(cut).toBeGreaterThan(5);
    await expect(replay({ events: eventsOf(h).slice(0, cut) })).resolves.toBeUndefined();
  }, 120_000);

  it('detects a history the code cannot replay (the check is real)', async () => {
    const events = eventsOf(history('index-document-three-steps.binpb'));
    const first = events.find((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
    first!.activityTaskScheduledEventAttributes!.activityType!.name = 'someOtherActivity';
    await expect(replay({ events })).rejects.toMatchObject({ name: 'DeterminismViolationError' });
  }, 120_000);
});
