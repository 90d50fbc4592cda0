import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  Client,
  NamespaceNotFoundError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import {
  INDEXING_CONFIG,
  IndexingConfig,
  SEARCH_CONFIG,
  SearchConfig,
  TEMPORAL_CLIENT,
  TEMPORAL_CONFIG,
  TemporalConfig,
} from '@docqa/common';
import type { SourceType } from '@docqa/db';
import {
  docsetWorkflowId,
  INDEX_DOCSET_WORKFLOW,
  IndexDocsetInput,
  IndexDocsetWorkflow,
  SEARCH_ATTRIBUTE_KEYS,
} from '@docqa/workflow-contract';
import type { RunOptions } from '../persistence/run.store';
import { indexingWindow } from './indexing-window';

/** How long starting the docset workflow may take before the request answers 503. */
const START_DEADLINE_MS = 10_000;
/**
 * Per-document child workflows one docset workflow run starts before it continues-as-new: keeps
 * its event history well inside Temporal's limits (docs/indexing.md; 1,000 files with
 * continue-as-new: test/indexing/large-docset).
 */
export const INDEXING_CHILDREN_PER_RUN = 200;
/**
 * Pause between starts refused because Temporal does not know the namespace yet. A namespace just
 * created (the embedded dev server creates its own as it starts) is unknown to the frontend for up
 * to about a second after a lookup missed it: the server caches the miss.
 */
const NAMESPACE_RETRY_MS = 1_000;
/**
 * How long a new run waits for the previous workflow of the docset to close. The previous run
 * records its outcome (so progress already says `isIndexing: false`) a moment before its workflow
 * closes; a re-index sent at once (issue #13's recipe) would otherwise be refused with 409.
 */
const PREVIOUS_RUN_CLOSE_WAIT_MS = 15_000;
/** How long stopping a run (deleting its docset) waits for the cancelled workflow to close before terminating it. */
const CANCEL_WAIT_MS = 60_000;

/** gRPC's INVALID_ARGUMENT. */
const INVALID_ARGUMENT = 3;

/**
 * True when a start was refused because the namespace is not (fully) there yet: unknown, or known
 * without the search attributes the workflows carry (the dev server registers those just after
 * the namespace). The second has no error type of its own; the server's text names it.
 */
function namespaceNotReady(err: unknown): boolean {
  if (err instanceof NamespaceNotFoundError) return true;
  const cause = (err as { cause?: { code?: number; details?: string } } | undefined)?.cause;
  return (
    cause?.code === INVALID_ARGUMENT && /no mapping defined for search attribute/i.test(cause.details ?? '')
  );
}

/** The docset run whose workflow to start (its RUNNING row is already in index_runs). */
export interface DocsetRunStart {
  accountId: number;
  docSetName: string;
  sourceType: SourceType;
  runId: string;
  options: RunOptions;
}

export type DocsetRunStartOutcome =
  /** `result` settles when the workflow closes (however it ends). */
  | { started: true; result: () => Promise<void> }
  /** Another workflow of the docset is still running. */
  | { started: false; conflict: true }
  /** Temporal is unreachable or refused the start. */
  | { started: false; conflict: false; errName: string | undefined };

/**
 * The indexing API's one adapter to the Temporal client: starts, cancels, describes and stops the
 * docset workflows (one per docset at a time, id `docsetWorkflowId`). Use cases see outcomes, not
 * the SDK's errors.
 */
@Injectable()
export class IndexingWorkflowClient {
  private readonly logger = new Logger('IndexingWorkflowClient');

  constructor(
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(INDEXING_CONFIG) private readonly indexing: IndexingConfig,
    @Inject(TEMPORAL_CONFIG) private readonly temporalConfig: TemporalConfig,
    @Inject(SEARCH_CONFIG) private readonly search: SearchConfig,
  ) {}

  /**
   * Starts the docset workflow of a run. This run's row is the docset's only open one, so a
   * workflow still running under the id is the previous run closing after it recorded its
   * outcome: the start waits (bounded) for it to close, then starts.
   */
  async startDocsetRun(run: DocsetRunStart): Promise<DocsetRunStartOutcome> {
    const workflowId = docsetWorkflowId(run.accountId, run.docSetName);
    try {
      try {
        return this.started(await this.start(run));
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        if (!(await this.closedWithin(workflowId, PREVIOUS_RUN_CLOSE_WAIT_MS))) throw err;
        return this.started(await this.start(run));
      }
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return { started: false, conflict: true };
      return { started: false, conflict: false, errName: (err as Error)?.name };
    }
  }

  /** Requests cancellation of the workflow; false when Temporal has no such workflow. */
  async cancel(workflowId: string): Promise<boolean> {
    try {
      await this.temporal.workflow.getHandle(workflowId).cancel();
      return true;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      return false;
    }
  }

  /** True when the workflow is known to have ended (closed, or unknown to Temporal); false while it runs or when Temporal cannot tell. */
  async hasEnded(workflowId: string): Promise<boolean> {
    try {
      const d = await this.temporal.workflow.getHandle(workflowId).describe();
      return d.status.name !== 'RUNNING';
    } catch (err) {
      return err instanceof WorkflowNotFoundError;
    }
  }

  /** Cancels the workflow, waits (bounded) for it to close, then terminates it if it has not. */
  async stop(workflowId: string, reason: string): Promise<void> {
    const handle = this.temporal.workflow.getHandle(workflowId);
    try {
      await handle.cancel();
      if (!(await this.closedWithin(workflowId, CANCEL_WAIT_MS))) await handle.terminate(reason);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }

  /**
   * Starts the workflow within START_DEADLINE_MS. A start refused because the namespace is unknown
   * is tried again until the deadline: right after the embedded dev server starts, its namespace
   * can be unknown for a moment (a first POST /index answered 503 in the soak). A namespace that
   * stays unknown (a wrong TEMPORAL_NAMESPACE) still ends in the 503, after the deadline.
   */
  private async start(run: DocsetRunStart) {
    const deadline = Date.now() + START_DEADLINE_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.startOnce(run, deadline);
      } catch (err) {
        const left = deadline - Date.now();
        if (!namespaceNotReady(err) || left <= NAMESPACE_RETRY_MS) throw err;
        if (attempt === 0)
          this.logger.warn(
            { namespace: this.temporalConfig.namespace, runId: run.runId },
            `Temporal does not know the namespace yet; the start is tried again for up to ${Math.round(left / 1000)} s`,
          );
        await new Promise((r) => setTimeout(r, NAMESPACE_RETRY_MS));
      }
    }
  }

  private startOnce(run: DocsetRunStart, deadline: number) {
    const { accountId, docSetName, sourceType, runId, options } = run;
    const kind = options.kind;
    const input: IndexDocsetInput = {
      runId,
      accountId,
      docSetName,
      sourceType,
      kind,
      windowSize: indexingWindow(this.indexing, this.search),
      childrenPerRun: this.indexing.childrenPerRun ?? INDEXING_CHILDREN_PER_RUN,
    };
    const what = kind === 'retry' ? `Retry document ${options.documentId}` : `Index ${sourceType} source`;
    // A deadline bounds the SDK's gRPC retries: with Temporal down the request answers 503 in
    // seconds instead of hanging (test/faults).
    return this.temporal.withDeadline(deadline, () =>
      this.temporal.workflow.start<IndexDocsetWorkflow>(INDEX_DOCSET_WORKFLOW, {
        taskQueue: this.temporalConfig.taskQueue,
        workflowId: docsetWorkflowId(accountId, docSetName),
        args: [input],
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        typedSearchAttributes: [
          { key: SEARCH_ATTRIBUTE_KEYS.accountId, value: String(accountId) },
          { key: SEARCH_ATTRIBUTE_KEYS.docSetName, value: docSetName },
          { key: SEARCH_ATTRIBUTE_KEYS.sourceType, value: sourceType },
        ],
        staticSummary: `${what} into docset "${docSetName.slice(0, 120)}" (account ${accountId})`,
        staticDetails: [
          `jobId: ${runId}`,
          `kind: ${kind}`,
          `file types: ${options.fileTypes.join(', ')}`,
          `forceReindex: ${options.forceReindex}`,
          `ocr: ${options.ocr ?? true}`,
          `window: ${input.windowSize} documents, continue-as-new every ${input.childrenPerRun} children`,
        ].join('\n'),
      }),
    );
  }

  private started(handle: { result(): Promise<unknown> }): DocsetRunStartOutcome {
    return { started: true, result: () => handle.result().then(() => undefined) };
  }

  /** Waits at most `ms` for the workflow under `workflowId` to close (however it ends); true once it has. */
  private closedWithin(workflowId: string, ms: number): Promise<boolean> {
    const handle = this.temporal.workflow.getHandle(workflowId);
    return Promise.race([
      handle.result().then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
    ]);
  }
}
