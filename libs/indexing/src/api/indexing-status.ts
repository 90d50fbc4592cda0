import { Injectable } from '@nestjs/common';
import { DocsetCatalog, emptyStatusCounts, SourceFolderFilter, StatusCounts } from '@docqa/catalog';
import { RunRow, RunStore } from '../persistence/run.store';
import { IndexingProgress, IndexingSummary, RunCounts } from './indexing.commands';

/** A run's counters (index_runs.counters) with every count present. */
export function runCountsOf(c: Record<string, number>): RunCounts {
  const n = (k: string) => Number(c[k] ?? 0);
  return {
    listed: n('listed'),
    new: n('new'),
    changed: n('changed'),
    unchanged: n('unchanged'),
    removed: n('removed'),
    completed: n('completed'),
    failed: n('failed'),
    cancelled: n('cancelled'),
  };
}

function progressOf(c: StatusCounts, isIndexing: boolean): IndexingProgress {
  return {
    pendingCount: c.PENDING + c.CANCELLED,
    indexingCount: c.INDEXING,
    completedCount: c.COMPLETE,
    errorCount: c.ERROR,
    isIndexing,
  };
}

function runSummary(r: RunRow) {
  return {
    jobId: r.id,
    kind: r.options.kind,
    status: r.status,
    startedAt: new Date(r.createdAt).toISOString(),
    finishedAt: r.finishedAt ? new Date(r.finishedAt).toISOString() : null,
    error: r.error,
    counts: runCountsOf(r.counters ?? {}),
  };
}

/**
 * The indexing reads: GET /index/progress/:docSetName and GET /documents/indexing-summary.
 * Counted in Postgres (the catalog's status counts, the run store's open and last runs).
 */
@Injectable()
export class IndexingStatus {
  constructor(
    private readonly docsets: DocsetCatalog,
    private readonly runs: RunStore,
  ) {}

  /** `folder`: counts only the documents of one SharePoint folder (and below). */
  async progress(
    accountId: number,
    docSetName: string,
    folder?: SourceFolderFilter,
  ): Promise<IndexingProgress> {
    const [counts, run] = await Promise.all([
      this.docsets.statusCounts(accountId, docSetName, folder),
      this.runs.openRun(accountId, docSetName),
    ]);
    return progressOf(counts, run !== null);
  }

  async summary(accountId: number, allowed: (docSetName: string) => boolean): Promise<IndexingSummary> {
    const [docsets, runs, open] = await Promise.all([
      this.docsets.statusByDocset(accountId),
      this.runs.lastRuns(accountId),
      this.runs.openRunsOfAccount(accountId),
    ]);
    const lastRun = new Map(runs.map((r) => [r.docSetName, r]));
    const openNames = new Set(open.map((r) => r.docSetName));
    const names = new Set([...docsets.map((d) => d.docSetName), ...runs.map((r) => r.docSetName)]);
    const byName = new Map(docsets.map((d) => [d.docSetName, d]));
    const items = [...names]
      .filter(allowed)
      .sort()
      .map((name) => {
        const d = byName.get(name);
        const counts = d?.counts ?? emptyStatusCounts();
        const r = lastRun.get(name);
        return {
          docSetName: name,
          sourceTypes: d?.sourceTypes ?? (r ? [r.sourceType] : []),
          exists: d?.exists ?? false,
          documentCount: counts.PENDING + counts.INDEXING + counts.COMPLETE + counts.ERROR + counts.CANCELLED,
          ...progressOf(counts, openNames.has(name)),
          lastRun: r ? runSummary(r) : null,
        };
      });
    const sum = (k: 'documentCount' | 'pendingCount' | 'indexingCount' | 'completedCount' | 'errorCount') =>
      items.reduce((a, i) => a + i[k], 0);
    return {
      docSets: items,
      totals: {
        docSetCount: items.length,
        documentCount: sum('documentCount'),
        pendingCount: sum('pendingCount'),
        indexingCount: sum('indexingCount'),
        completedCount: sum('completedCount'),
        errorCount: sum('errorCount'),
        indexingDocSetCount: items.filter((i) => i.isIndexing).length,
      },
    };
  }
}
