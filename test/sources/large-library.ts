import type { Client as TemporalClient } from '@temporalio/client';
import { docsetWorkflowId } from '@docqa/workflow-contract';
import { startTestApp, TestApp } from '../support/app';
import { FakeGraph, startFakeGraph } from '../support/fake-graph';
import { dbOf, newAccount, paths, startIndex, temporalOf, waitFor } from '../indexing/support';

export interface LargeLibraryResult {
  files: number;
  folders: number;
  /** Listing through the connector alone (all pages), files per second. */
  listMs: number;
  /** POST /index to the last document COMPLETE. */
  indexMs: number;
  statusCounts: Record<string, number>;
  /** Distinct documents and distinct source ids (every file accounted for exactly once). */
  distinctSourceIds: number;
  runs: number;
  maxHistoryLength: number;
  maxHistoryBytes: number;
  peakRssMb: number;
  runStatus: string;
  runError: string | null;
  counters: Record<string, number>;
}

/** `files` tiny text files spread over `folders` folders of a fake SharePoint library. */
export function fillLibrary(graph: FakeGraph, files: number, folders: number): void {
  const per = Math.ceil(files / folders);
  for (let f = 0, left = files; left > 0; f++, left -= per)
    graph.addFiles(
      `Library/Folder ${String(f).padStart(3, '0')}`,
      Math.min(per, left),
      (i) => `Doc ${f}-${i}: ok.`,
    );
}

/**
 * Indexes a synthetic SharePoint library of `files` small text files through the real service
 * (API + in-process worker on the real Temporal dev server, Postgres, Elasticsearch) and reports
 * listing and indexing rates, per-run history size of the docset workflow chain (continue-as-new)
 * and the peak RSS of the process hosting the worker.
 */
export async function indexLargeLibrary(o: {
  files: number;
  folders?: number;
  window?: number;
  childrenPerRun?: number;
  timeoutMs?: number;
  log?: (s: string) => void;
}): Promise<LargeLibraryResult> {
  const log = o.log ?? (() => undefined);
  const folders = o.folders ?? Math.max(1, Math.ceil(o.files / 1000));
  const graph = await startFakeGraph({ pageSize: 999 });
  let app: TestApp | undefined;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  try {
    fillLibrary(graph, o.files, folders);
    app = await startTestApp({
      worker: true,
      env: {
        GRAPH_BASE_URL: graph.graphBaseUrl,
        MS_AUTHORITY_HOST: graph.authorityHost,
        SOURCE_CA_FILE: graph.caFile,
        INDEXING_CONCURRENCY: String(o.window ?? 64),
        LOG_LEVEL: 'warn',
        // thousands of files measure orchestration, not retrieval: the cheap hashing embedder
        LOCAL_EMBEDDER: 'hashing',
      },
      config: { indexing: { childrenPerRun: o.childrenPerRun ?? 500 } },
    });
    const { token, accountId } = await newAccount(app);
    const credentials = {
      tenantId: graph.app.tenantId,
      clientId: graph.app.clientId,
      clientSecret: graph.app.clientSecret,
      siteId: graph.siteId,
      driveId: graph.driveId,
      folderPath: '/Library',
    };

    // Listing rate: check-source pages through the whole folder tree.
    let t0 = Date.now();
    const check = await app.client.post(
      paths.checkSource,
      { docSetName: 'library', sourceType: 'SHAREPOINT', credentials },
      { token },
    );
    if (check.status !== 200 || check.body.sourceFileCount !== o.files)
      throw new Error(`check-source: ${check.status} ${check.text}`);
    const listMs = Date.now() - t0;
    log(`listed ${o.files} files in ${folders} folders in ${listMs} ms`);

    t0 = Date.now();
    const jobId = await startIndex(app, token, {
      docSetName: 'library',
      sourceType: 'SHAREPOINT',
      credentials,
    });
    let lastLog = 0;
    await waitFor(
      app,
      token,
      'library',
      (p) => {
        if (Date.now() - lastLog > 15_000) {
          lastLog = Date.now();
          log(`progress ${JSON.stringify(p)} after ${Math.round((Date.now() - t0) / 1000)} s`);
        }
        return !p.isIndexing;
      },
      o.timeoutMs ?? 1_800_000,
      1000,
    );
    const indexMs = Date.now() - t0;
    log(`indexed in ${indexMs} ms`);

    const db = await dbOf(app);
    let statusCounts: Record<string, number>;
    let distinctSourceIds: number;
    let run: { status: string; error: string | null; counters: Record<string, number> };
    try {
      const s = await db.query(
        `SELECT status, count(*)::int AS n FROM documents WHERE account_id = $1 AND docset_name = 'library' GROUP BY status`,
        [accountId],
      );
      statusCounts = Object.fromEntries(s.rows.map((r: { status: string; n: number }) => [r.status, r.n]));
      const d = await db.query(
        `SELECT count(DISTINCT source_id)::int AS n FROM documents WHERE account_id = $1 AND docset_name = 'library'`,
        [accountId],
      );
      distinctSourceIds = d.rows[0].n;
      run = (await db.query('SELECT status, error, counters FROM index_runs WHERE id = $1', [jobId])).rows[0];
    } finally {
      await db.end();
    }

    const temporal: TemporalClient = temporalOf(app);
    let runs = 0;
    let maxHistoryLength = 0;
    let maxHistoryBytes = 0;
    for await (const w of temporal.workflow.list({
      query: `WorkflowId = '${docsetWorkflowId(accountId, 'library')}'`,
    })) {
      runs++;
      maxHistoryLength = Math.max(maxHistoryLength, w.historyLength);
      maxHistoryBytes = Math.max(maxHistoryBytes, w.historySize ?? 0);
    }
    return {
      files: o.files,
      folders,
      listMs,
      indexMs,
      statusCounts,
      distinctSourceIds,
      runs,
      maxHistoryLength,
      maxHistoryBytes,
      peakRssMb: Math.round(peakRss / 1024 / 1024),
      runStatus: run.status,
      runError: run.error,
      counters: run.counters,
    };
  } finally {
    clearInterval(sampler);
    await app?.close();
    await graph.close();
  }
}
