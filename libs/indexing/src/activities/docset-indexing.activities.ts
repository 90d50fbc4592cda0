import { Inject, Injectable } from '@nestjs/common';
import { INDEXING_CONFIG, IndexingConfig } from '@docqa/common';
import type { RunStatus } from '@docqa/db';
import { PlanCounts } from '../persistence/run-planning.store';
import { DocsetPipeline, ListedPage } from '../pipeline/docset-pipeline';
import { asActivity, runActivity } from './failures';

/**
 * Run-level activities of indexDocsetWorkflow. Each makes one call into DocsetPipeline; payloads
 * are ids, tokens and counts.
 */
@Injectable()
export class DocsetIndexingActivities {
  /** The first wait before a step whose dependency was unavailable is tried again (failures.ts). */
  private readonly retryMs: number;

  constructor(
    private readonly pipeline: DocsetPipeline,
    @Inject(INDEXING_CONFIG) indexing: IndexingConfig,
  ) {
    this.retryMs = indexing.unavailableRetryMs;
  }

  /** Lists one page of the source into the run's staged listing. */
  async listSourcePage(input: { runId: string; pageToken: string | null }): Promise<ListedPage> {
    return asActivity(this.retryMs, () => this.pipeline.listPage(input.runId, input.pageToken));
  }

  /** New and changed documents become PENDING for the run; returns the counts. */
  async planIndexRun(input: { runId: string }): Promise<PlanCounts> {
    return asActivity(this.retryMs, () => this.pipeline.plan(input.runId));
  }

  /** Deletes the chunks, pages and rows of documents that left the source. */
  async removeGoneDocuments(input: { runId: string }): Promise<{ removed: number }> {
    return runActivity(this.retryMs, async ({ signal, progress }) => {
      const removed = await this.pipeline.removeGone(input.runId, (n) => progress(n), signal);
      return { removed };
    });
  }

  /** The next PENDING documents of the run after `afterId`, in id order. */
  async nextDocuments(input: {
    runId: string;
    afterId: string | null;
    limit: number;
  }): Promise<Array<{ id: string; fileName: string }>> {
    return asActivity(this.retryMs, () =>
      this.pipeline.nextDocuments(input.runId, input.afterId, input.limit),
    );
  }

  /** Final status and counters of the run in Postgres. */
  async finishIndexRun(input: {
    runId: string;
    status: Exclude<RunStatus, 'RUNNING'>;
    error: string | null;
    counters: Record<string, number>;
  }): Promise<Record<string, number>> {
    return asActivity(this.retryMs, () =>
      this.pipeline.finish(input.runId, input.status, input.error, input.counters),
    );
  }
}
