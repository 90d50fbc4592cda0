import { Inject, Injectable, Logger } from '@nestjs/common';
import { DeadlineExceededError, withDeadline } from '@docqa/common';
import type { RunStatus } from '@docqa/db';
import { hasMaintenance, SEARCH_INDEX, SearchIndex } from '@docqa/search';
import { fileTypeOf, isIncremental, SourceSync, SyncRun } from '@docqa/sources';
import { DocumentLifecycleStore } from '../persistence/document-lifecycle.store';
import { PlanCounts, RunPlanningStore } from '../persistence/run-planning.store';
import { RunRow, RunStore } from '../persistence/run.store';
import { RunGoneError, SourceEmptyError } from './pipeline-errors';
import { RunCredentials } from './run-credentials';

/** Objects requested per listing page (S3's maximum). */
export const LISTING_PAGE_SIZE = 1000;
const REMOVAL_BATCH = 100;

export interface ListedPage {
  /** Supported files of the run's types staged from this page. */
  staged: number;
  /** Other objects on the page (unsupported or excluded types, folders). */
  ignored: number;
  nextPageToken: string | null;
}

/** How long finishing a run waits for the search index to settle. */
const SETTLE_WAIT_MS = 20_000;

/** Run-level steps of a docset indexing run: list, plan, remove, page through work, finish. */
@Injectable()
export class DocsetPipeline {
  private readonly logger = new Logger('DocsetPipeline');

  constructor(
    private readonly runs: RunStore,
    private readonly planning: RunPlanningStore,
    private readonly documents: DocumentLifecycleStore,
    private readonly credentials: RunCredentials,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    private readonly sync: SourceSync,
  ) {}

  /** The run as SourceSync (incremental SharePoint / Google Drive re-sync) sees it. */
  private syncRun(run: RunRow): SyncRun {
    return {
      id: run.id,
      accountId: run.accountId,
      docSetName: run.docSetName,
      sourceType: run.sourceType,
      scope: run.options.scope,
      forceReindex: run.options.forceReindex,
    };
  }

  async run(runId: string): Promise<RunRow> {
    const run = await this.runs.getRun(runId);
    if (!run) throw new RunGoneError(`Index run ${runId} no longer exists`);
    return run;
  }

  /** Lists one page of the source and stages its supported files in Postgres. */
  async listPage(runId: string, pageToken: string | null, pageSize = LISTING_PAGE_SIZE): Promise<ListedPage> {
    const run = await this.run(runId);
    const { connector, credentials } = this.credentials.resolve(run);
    // A source with a change feed reads only what changed since the last completed run.
    const page =
      isIncremental(connector) && run.options.kind === 'sync'
        ? await this.sync.listPage(this.syncRun(run), connector, credentials, pageToken, pageSize)
        : await connector.listPage(credentials, pageToken, pageSize);
    const types = new Set(run.options.fileTypes);
    const wanted = page.objects
      .map((o) => ({ ...o, fileType: fileTypeOf(o.fileName) }))
      .filter((o): o is typeof o & { fileType: string } => o.fileType !== null && types.has(o.fileType));
    await this.planning.stageListing(run.id, wanted);
    return {
      staged: wanted.length,
      ignored: page.objects.length - wanted.length,
      nextPageToken: page.nextPageToken,
    };
  }

  /** Diffs the staged listing against the docset (see RunPlanningStore.plan). */
  async plan(runId: string): Promise<PlanCounts> {
    const run = await this.run(runId);
    if (
      run.options.kind === 'sync' &&
      !(await this.sync.isChangesRun(run.id)) &&
      (await this.planning.countStaged(run.id)) === 0
    ) {
      const existing = await this.planning.countInScope(run);
      if (existing > 0)
        throw new SourceEmptyError(
          `The source lists no supported files while the docset has ${existing} documents from it; nothing was removed`,
        );
    }
    const counts = await this.planning.plan(run);
    await this.runs.mergeRunCounters(run.id, { ...counts });
    return counts;
  }

  /** Removes documents that left the source: their chunks first, then rows and pages. */
  async removeGone(
    runId: string,
    onProgress: (removed: number) => void = () => undefined,
    signal?: AbortSignal,
  ): Promise<number> {
    const run = await this.run(runId);
    if (run.options.kind !== 'sync') return 0;
    let removed = 0;
    const changes = await this.sync.isChangesRun(run.id);
    for (;;) {
      const batch = changes
        ? await this.sync.goneByChanges(this.syncRun(run), REMOVAL_BATCH)
        : await this.planning.goneDocuments(run, REMOVAL_BATCH);
      if (!batch.length) break;
      for (const d of batch) {
        await this.search.deleteByDocument(run.accountId, d.id, { signal });
        onProgress(removed);
      }
      await this.documents.deleteDocuments(batch.map((d) => d.id));
      removed += batch.length;
      onProgress(removed);
    }
    if (removed) this.logger.log({ runId, removed }, 'removed documents that left the source');
    await this.runs.mergeRunCounters(run.id, { removed });
    return removed;
  }

  nextDocuments(runId: string, afterId: string | null, limit: number) {
    return this.planning.nextPending(runId, afterId, limit);
  }

  /**
   * A completed run's chunks rank as those of a quiet index before the run reports it
   * (SearchMaintenance.settle; an engine without it has nothing to settle). Bounded so that a slow
   * engine delays the outcome by at most SETTLE_WAIT_MS (a bookkeeping activity has a minute); the
   * maintenance itself runs on.
   */
  private async settleSearchIndex(runId: string): Promise<void> {
    if (!hasMaintenance(this.search)) return;
    await withDeadline(this.search.settle(), SETTLE_WAIT_MS, 'search index maintenance').catch(
      (err: unknown) => {
        if (!(err instanceof DeadlineExceededError)) throw err;
        this.logger.warn(`run ${runId}: ${err.message}; finishing the run`);
      },
    );
  }

  /** Final status and counters of the run; unfinished documents stay re-runnable (CANCELLED). */
  async finish(
    runId: string,
    status: Exclude<RunStatus, 'RUNNING'>,
    error: string | null,
    counters: Record<string, number> = {},
  ): Promise<Record<string, number>> {
    // Only a completed run promises anything about ranking; a cancelled or failed one need not wait.
    if (status === 'COMPLETED') await this.settleSearchIndex(runId);
    await this.runs.finishRun(runId, status, error, counters);
    if (status === 'COMPLETED') {
      const run = await this.runs.getRun(runId);
      if (run?.options.kind === 'sync') await this.sync.commit(this.syncRun(run));
    }
    const byStatus = await this.planning.countRunDocuments(runId);
    const totals = {
      ...counters,
      completed: byStatus.COMPLETE ?? 0,
      failed: byStatus.ERROR ?? 0,
      cancelled: byStatus.CANCELLED ?? 0,
    };
    await this.runs.mergeRunCounters(runId, totals);
    return totals;
  }
}
