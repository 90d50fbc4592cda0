import { Injectable, Logger } from '@nestjs/common';
import { RunStore } from '../persistence/run.store';
import { IndexingWorkflowClient } from './indexing-workflow.client';

/** A RUNNING row this old whose workflow is closed or unknown is a leftover (for example a terminated run). */
const STALE_RUN_MS = 60_000;

/**
 * Stale-run recovery: a RUNNING row whose workflow ended without recording the outcome (for example
 * a run terminated in the Temporal UI) would block its docset forever; opening a new run closes it.
 */
@Injectable()
export class StaleRunRecovery {
  private readonly logger = new Logger('StaleRunRecovery');

  constructor(
    private readonly runs: RunStore,
    private readonly workflows: IndexingWorkflowClient,
  ) {}

  /** Closes the docset's RUNNING row if its workflow is no longer running; true if the docset has no open run now. */
  async closeIfStale(accountId: number, docSetName: string): Promise<boolean> {
    const open = await this.runs.openRun(accountId, docSetName);
    if (!open) return true;
    if (Date.now() - new Date(open.createdAt).getTime() < STALE_RUN_MS) return false;
    if (!(await this.workflows.hasEnded(open.workflowId))) return false;
    this.logger.warn({ accountId, runId: open.id }, 'closing a run whose workflow is no longer running');
    await this.runs.finishRun(open.id, 'FAILED', 'The run ended without recording its outcome', {});
    return true;
  }
}
