import { Injectable, Logger } from '@nestjs/common';
import { DomainError, ErrorCode } from '@docqa/common';
import { RunStore } from '../persistence/run.store';
import { IndexAck } from './indexing.commands';
import { IndexingWorkflowClient } from './indexing-workflow.client';

/**
 * POST /index/cancel/:docSetName: asks the open run's workflow to cancel (it closes the run itself);
 * a run whose workflow Temporal no longer knows is closed CANCELLED here.
 */
@Injectable()
export class CancelIndexing {
  private readonly logger = new Logger('CancelIndexing');

  constructor(
    private readonly runs: RunStore,
    private readonly workflows: IndexingWorkflowClient,
  ) {}

  async cancel(accountId: number, docSetName: string): Promise<IndexAck> {
    const run = await this.runs.openRun(accountId, docSetName);
    if (!run)
      throw new DomainError(ErrorCode.CONFLICT, `No indexing run is in progress for docset "${docSetName}"`, {
        docSetName,
      });
    if (!(await this.workflows.cancel(run.workflowId)))
      await this.runs.finishRun(run.id, 'CANCELLED', null, {});
    this.logger.log({ accountId, runId: run.id }, 'indexing run cancellation requested');
    return { message: 'Cancellation requested', docSetName, jobId: run.id };
  }
}
