import type { Client as TemporalClient } from '@temporalio/client';
import { tsToMs } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

const E = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Median and 90th percentile of a list of milliseconds (0 for an empty list). */
function stats(xs: number[]): { p50: number; p90: number; n: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : 0);
  return { p50: Math.round(at(0.5)), p90: Math.round(at(0.9)), n: s.length };
}

const time = (e: HistoryEvent | undefined) => (e ? tsToMs(e.eventTime) : NaN);

/**
 * Where a small document's time goes, from Temporal histories (the benchmark's diagnosis of the
 * per-document machinery): per child workflow, the wait for its first workflow task, the task
 * itself, the activity's dispatch and run, the wait for the closing workflow task; per docset
 * workflow task, its dispatch wait, its run, and the children it started. Milliseconds, p50/p90.
 */
export interface HistoryTimeline {
  child: Record<string, { p50: number; p90: number; n: number }>;
  parent: Record<string, { p50: number; p90: number; n: number }>;
}

export async function historyTimeline(
  tc: TemporalClient,
  docSetName: string,
  sample = 200,
): Promise<HistoryTimeline> {
  const child: Record<string, number[]> = {
    'child start -> first task started': [],
    'first task run': [],
    'activity scheduled -> started': [],
    'activity run': [],
    'activity done -> closing task started': [],
    'closing task run': [],
    'child total': [],
    'parent initiated -> child started': [],
    'child closed -> parent event': [],
  };
  const parent: Record<string, number[]> = {
    'task scheduled -> started': [],
    'task run': [],
    'children started per task': [],
    'events per task': [],
  };
  const childClosedAt = new Map<string, number>();
  let sampled = 0;
  for await (const w of tc.workflow.list({
    query: `WorkflowType = 'indexDocumentWorkflow' AND DocqaDocSetName = '${docSetName}'`,
  })) {
    if (sampled++ >= sample) break;
    const h = await tc.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
    const ev = h.events ?? [];
    const of = (t: number) => ev.filter((e) => e.eventType === t);
    const tasksStarted = of(E.EVENT_TYPE_WORKFLOW_TASK_STARTED);
    const tasksDone = of(E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
    const first = ev[0];
    const closed = of(E.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)[0];
    const actSched = of(E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)[0];
    const actStarted = of(E.EVENT_TYPE_ACTIVITY_TASK_STARTED)[0];
    const actDone = of(E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)[0];
    if (!first || !closed || tasksStarted.length < 2 || !actSched || !actStarted || !actDone) continue;
    child['child start -> first task started'].push(time(tasksStarted[0]) - time(first));
    child['first task run'].push(time(tasksDone[0]) - time(tasksStarted[0]));
    child['activity scheduled -> started'].push(time(actStarted) - time(actSched));
    child['activity run'].push(time(actDone) - time(actStarted));
    child['activity done -> closing task started'].push(time(tasksStarted.at(-1)) - time(actDone));
    child['closing task run'].push(time(tasksDone.at(-1)) - time(tasksStarted.at(-1)));
    child['child total'].push(time(closed) - time(first));
    childClosedAt.set(w.workflowId, time(closed));
  }
  for await (const w of tc.workflow.list({
    query: `WorkflowType = 'indexDocsetWorkflow' AND DocqaDocSetName = '${docSetName}'`,
  })) {
    const h = await tc.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
    const ev = h.events ?? [];
    const initiated = new Map<string, number>();
    let scheduledAt = NaN;
    let startedAt = NaN;
    let lastTaskDone = 0;
    for (let i = 0; i < ev.length; i++) {
      const e = ev[i];
      const t = time(e);
      switch (e.eventType) {
        case E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
          scheduledAt = t;
          break;
        case E.EVENT_TYPE_WORKFLOW_TASK_STARTED:
          startedAt = t;
          parent['task scheduled -> started'].push(t - scheduledAt);
          break;
        case E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED: {
          parent['task run'].push(t - startedAt);
          let started = 0;
          for (let j = i + 1; j < ev.length && ev[j].eventType !== E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED; j++)
            if (ev[j].eventType === E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED) started++;
          parent['children started per task'].push(started);
          parent['events per task'].push(i - lastTaskDone);
          lastTaskDone = i;
          break;
        }
        case E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
          initiated.set(e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? '', t);
          break;
        case E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED: {
          const id = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId ?? '';
          if (initiated.has(id)) child['parent initiated -> child started'].push(t - initiated.get(id)!);
          break;
        }
        case E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED: {
          const id = e.childWorkflowExecutionCompletedEventAttributes?.workflowExecution?.workflowId ?? '';
          if (childClosedAt.has(id)) child['child closed -> parent event'].push(t - childClosedAt.get(id)!);
          break;
        }
      }
    }
  }
  const out = (r: Record<string, number[]>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, stats(v)]));
  return { child: out(child), parent: out(parent) };
}
