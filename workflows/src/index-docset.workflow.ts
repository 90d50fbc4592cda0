import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  ContinueAsNew,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { DocsetIndexingActivities } from '@docqa/indexing/activities/docset-indexing.activities';
import { indexDocumentWorkflow } from './index-document.workflow';
import { BOOKKEEPING_ACTIVITY, LIST_SOURCE_ACTIVITY, PLAN_ACTIVITY } from './indexing.activity-options';
import {
  DocsetRunCarry,
  DocsetRunPhase,
  DocsetRunResult,
  documentWorkflowId,
  emptyCounters,
  IndexDocsetInput,
  progressQuery,
} from '@docqa/workflow-contract';

const { listSourcePage } = proxyActivities<DocsetIndexingActivities>({
  ...LIST_SOURCE_ACTIVITY,
  summary: 'List one page of the source into the run listing',
});
const { planIndexRun } = proxyActivities<DocsetIndexingActivities>({
  ...PLAN_ACTIVITY,
  summary: 'Plan: diff the listing against the docset by etag',
});
const { removeGoneDocuments } = proxyActivities<DocsetIndexingActivities>({
  ...PLAN_ACTIVITY,
  summary: 'Remove documents that left the source',
});
const { nextDocuments } = proxyActivities<DocsetIndexingActivities>({
  ...BOOKKEEPING_ACTIVITY,
  summary: 'Fetch the next documents to index',
});
const { finishIndexRun } = proxyActivities<DocsetIndexingActivities>({
  ...BOOKKEEPING_ACTIVITY,
  summary: 'Record the run outcome and counters',
});

/** Document ids fetched per nextDocuments call. */
const FETCH_BATCH = 100;

function failureReason(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) return err.cause.message;
  if (err instanceof ActivityFailure)
    return `Step ${err.activityType} failed (${err.cause?.name ?? 'error'})`;
  return err instanceof Error ? err.message : 'Indexing run failed';
}

/**
 * A docset indexing run (workflow id `docset-index/{accountId}/{docSetName}`): page through the
 * source listing, plan against Postgres, remove what left the source, then run one
 * indexDocumentWorkflow child per document in a sliding window of `windowSize`. After
 * `childrenPerRun` children (or when Temporal suggests it) it drains the window and continues as
 * new, so the history of a 100,000-file run stays bounded. Retry runs (`kind: 'retry'`) skip
 * listing, planning and removal and index the one document the API marked PENDING.
 *
 * Cancellation cancels the running children (they leave their documents CANCELLED, re-runnable),
 * waits for them, closes the run CANCELLED in Postgres, and rethrows.
 */
export async function indexDocsetWorkflow(input: IndexDocsetInput): Promise<DocsetRunResult> {
  const carry: DocsetRunCarry = input.carry ?? {
    phase: input.kind === 'retry' ? 'indexing' : 'listing',
    pageToken: null,
    afterId: null,
    counters: emptyCounters(),
    generation: 0,
  };
  const counters = carry.counters;
  let phase: DocsetRunPhase = carry.phase;
  /** Children started and not finished, and starts not yet confirmed. */
  let inFlight = 0;
  let starting = 0;
  const running = new Set<string>();
  setHandler(progressQuery, () => ({
    runId: input.runId,
    phase,
    counters: { ...counters },
    inFlight,
    windowSize: input.windowSize,
    generation: carry.generation,
  }));

  const next = (over: Partial<DocsetRunCarry>) =>
    continueAsNew<typeof indexDocsetWorkflow>({
      ...input,
      carry: { ...carry, phase, counters, generation: carry.generation + 1, ...over },
    });

  try {
    if (phase === 'listing') {
      let pageToken = carry.pageToken;
      do {
        const page = await listSourcePage({ runId: input.runId, pageToken });
        counters.listed += page.staged;
        counters.ignored += page.ignored;
        pageToken = page.nextPageToken;
        if (pageToken && workflowInfo().continueAsNewSuggested) {
          await condition(allHandlersFinished);
          return await next({ pageToken });
        }
      } while (pageToken);
      phase = 'planning';
    }
    if (phase === 'planning') {
      const plan = await planIndexRun({ runId: input.runId });
      counters.new = plan.new;
      counters.changed = plan.changed;
      counters.unchanged = plan.unchanged;
      phase = 'removing';
    }
    if (phase === 'removing') {
      const { removed } = await removeGoneDocuments({ runId: input.runId });
      counters.removed = removed;
      phase = 'indexing';
    }

    // Sliding window of children, in document id order. Free slots are filled together, so the
    // starts of several children go out in one workflow task. Children run in a non-cancellable
    // scope: on cancellation the run first lets pending starts resolve, then cancels exactly the
    // children that started (so none is left running unseen), and waits for them.
    let afterId = carry.afterId;
    let fetchAfter = afterId;
    let queue: Array<{ id: string; fileName: string }> = [];
    let exhausted = false;
    let startedHere = 0;
    const launch = (doc: { id: string; fileName: string }) => {
      const workflowId = documentWorkflowId(doc.id);
      afterId = doc.id;
      startedHere++;
      counters.started++;
      inFlight++;
      starting++;
      void CancellationScope.nonCancellable(() =>
        startChild(indexDocumentWorkflow, {
          workflowId,
          args: [{ documentId: doc.id, runId: input.runId }],
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          typedSearchAttributes: workflowInfo().typedSearchAttributes,
          staticSummary: `Index ${doc.fileName.slice(0, 200)}`,
          staticDetails: `Document ${doc.id} of run ${input.runId} (docset "${input.docSetName}")`,
        }).then(
          (child) => {
            starting--;
            running.add(workflowId);
            return child.result();
          },
          (err: unknown) => {
            starting--;
            throw err;
          },
        ),
      )
        .then(
          (r) => {
            if (r.status === 'COMPLETE') counters.completed++;
            else counters.skipped++;
          },
          (err: unknown) => {
            // Already running elsewhere (a retry of this document): that run owns it.
            if (err instanceof WorkflowExecutionAlreadyStartedError) counters.skipped++;
            else if (isCancellation(err)) counters.cancelled++;
            // The document ended ERROR (DocumentIndexingFailed): the run goes on with the others.
            else counters.failed++;
          },
        )
        .finally(() => {
          running.delete(workflowId);
          inFlight--;
        });
    };
    for (;;) {
      if (!queue.length && !exhausted) {
        queue = await nextDocuments({ runId: input.runId, afterId: fetchAfter, limit: FETCH_BATCH });
        exhausted = queue.length < FETCH_BATCH;
        if (queue.length) fetchAfter = queue[queue.length - 1].id;
      }
      if (!queue.length) break;
      await condition(() => inFlight < input.windowSize);
      if (startedHere >= input.childrenPerRun || workflowInfo().continueAsNewSuggested) {
        // Children must finish before this run closes (parent-close policy applies on continue-as-new).
        await condition(() => inFlight === 0);
        await condition(allHandlersFinished);
        return await next({ phase: 'indexing', afterId, pageToken: null });
      }
      while (queue.length && inFlight < input.windowSize && startedHere < input.childrenPerRun) {
        launch(queue.shift() as { id: string; fileName: string });
      }
    }
    await condition(() => inFlight === 0);

    phase = 'finishing';
    await finishIndexRun({ runId: input.runId, status: 'COMPLETED', error: null, counters: { ...counters } });
    phase = 'done';
    return { status: 'COMPLETED', counters };
  } catch (err) {
    // continueAsNew() works by throwing: the run goes on in the next execution, it did not fail.
    if (err instanceof ContinueAsNew) throw err;
    const cancelled = isCancellation(err);
    await CancellationScope.nonCancellable(async () => {
      if (cancelled) {
        await condition(() => starting === 0);
        await Promise.all(
          [...running].map((id) =>
            // A child that closed meanwhile has nothing left to cancel.
            getExternalWorkflowHandle(id)
              .cancel()
              .catch(() => undefined),
          ),
        );
      }
      await condition(() => inFlight === 0);
      phase = 'finishing';
      await finishIndexRun({
        runId: input.runId,
        status: cancelled ? 'CANCELLED' : 'FAILED',
        error: cancelled ? null : failureReason(err),
        counters: { ...counters },
      });
      phase = 'done';
    });
    throw err;
  }
}
