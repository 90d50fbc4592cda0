import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError, ErrorCode } from '@docqa/common';
import { docsetWorkflowId } from '@docqa/workflow-contract';
import { RunRow, RunStore } from '../persistence/run.store';
import { isUniqueViolation } from '@docqa/db';
import { IndexingWorkflowClient } from './indexing-workflow.client';
import { StaleRunRecovery } from './stale-run.recovery';

export function indexingInProgress(docSetName: string): DomainError {
  return new DomainError(
    ErrorCode.INDEXING_IN_PROGRESS,
    `An indexing run for docset "${docSetName}" is already in progress`,
    { docSetName },
  );
}

/** The run to open: its RUNNING row (the account, docset and workflow id are added). */
export type RunToLaunch = Pick<
  RunRow,
  'id' | 'sourceType' | 'options' | 'credentialsEnc' | 'summaryModel'
> & {
  accountName: string | null;
};

/**
 * Opens a run of a docset (start indexing, retry a document): inserts its RUNNING row, at most one
 * per docset (409 otherwise, after stale-run recovery), then starts its workflow. A run whose
 * workflow cannot be started is closed FAILED at once.
 */
@Injectable()
export class RunLauncher {
  private readonly logger = new Logger('RunLauncher');

  constructor(
    private readonly runs: RunStore,
    private readonly workflows: IndexingWorkflowClient,
    private readonly staleRuns: StaleRunRecovery,
  ) {}

  /**
   * `alsoInTransaction` runs in the transaction that inserts the row (a retry marks its document
   * PENDING there); `beforeStart` after it, while the row holds the docset and before the workflow
   * lists the source (an upload stores its files there); if it fails the run is closed FAILED.
   * Returns a promise of the workflow's end (however it ends).
   */
  async launch(
    accountId: number,
    docSetName: string,
    run: RunToLaunch,
    alsoInTransaction?: (m: EntityManager) => Promise<void>,
    beforeStart?: () => Promise<void>,
  ): Promise<{ result: () => Promise<void> }> {
    await this.insertRun(accountId, docSetName, run, alsoInTransaction);
    if (beforeStart)
      await beforeStart().catch(async (err: unknown) => {
        await this.runs.finishRun(run.id, 'FAILED', 'The run could not be started', {});
        throw err;
      });
    const outcome = await this.workflows.startDocsetRun({
      accountId,
      docSetName,
      sourceType: run.sourceType,
      runId: run.id,
      options: run.options,
    });
    if (outcome.started) return outcome;
    await this.runs.finishRun(
      run.id,
      'FAILED',
      outcome.conflict ? 'Another run was already open' : 'The run could not be started',
      {},
    );
    if (outcome.conflict) throw indexingInProgress(docSetName);
    this.logger.error(
      { accountId, runId: run.id, errName: outcome.errName },
      'could not start the indexing workflow',
    );
    throw new DomainError(
      ErrorCode.DEPENDENCY_UNAVAILABLE,
      'The indexing service is unavailable; try again later',
    );
  }

  /** Inserts the RUNNING row; the partial unique index turns a second open run into 409. */
  private async insertRun(
    accountId: number,
    docSetName: string,
    run: RunToLaunch,
    alsoInTransaction?: (m: EntityManager) => Promise<void>,
  ): Promise<void> {
    const row = { ...run, accountId, docSetName, workflowId: docsetWorkflowId(accountId, docSetName) };
    for (let attempt = 0; ; attempt++) {
      try {
        await this.runs.transaction(async (m) => {
          await this.runs.insertRun(row, m);
          await alsoInTransaction?.(m);
        });
        return;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        if (attempt > 0 || !(await this.staleRuns.closeIfStale(accountId, docSetName)))
          throw indexingInProgress(docSetName);
      }
    }
  }
}
