import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import {
  DocsetCatalog,
  DocumentCatalog,
  emptyStatusCounts,
  SourceFolderFilter,
  StatusCounts,
} from '@docqa/catalog';
import { APP_CONFIG, AppConfig, DomainError, ErrorCode, TEMPORAL_CLIENT } from '@docqa/common';
import type { SourceType } from '@docqa/db';
import { SEARCH_INDEX, SearchIndex } from '@docqa/search';
import {
  fileTypeOf,
  INDEXABLE_FILE_TYPES,
  isIncremental,
  SourceConnector,
  SourceConnectorRegistry,
  SourceCredentialsCipher,
  SourceError,
  SourceSync,
} from '@docqa/sources';
import {
  docsetWorkflowId,
  INDEX_DOCSET_WORKFLOW,
  IndexDocsetInput,
  IndexDocsetWorkflow,
  SEARCH_ATTRIBUTE_KEYS,
} from '@docqa/workflow-contract';
import { DocumentLifecycleStore } from '../persistence/document-lifecycle.store';
import { RunOptions, RunRow, RunStore } from '../persistence/run.store';
import { isUniqueViolation } from '../persistence/sql';
import { LISTING_PAGE_SIZE } from '../pipeline/docset-pipeline';
import {
  CheckSourceCommand,
  IndexAck,
  IndexCommand,
  IndexingProgress,
  IndexingSummary,
  IndexSyncResult,
  RunCounts,
  RunOutcome,
  SourceCheckResult,
} from './indexing.commands';

/** A RUNNING row this old whose workflow is closed or unknown is a leftover (for example a terminated run). */
const STALE_RUN_MS = 60_000;
/** How long deleting a docset waits for its cancelled run to close before terminating it. */
const CANCEL_WAIT_MS = 60_000;

function inProgress(docSetName: string): DomainError {
  return new DomainError(
    ErrorCode.INDEXING_IN_PROGRESS,
    `An indexing run for docset "${docSetName}" is already in progress`,
    { docSetName },
  );
}

function sourceFailure(err: unknown): never {
  if (err instanceof SourceError)
    throw new DomainError(ErrorCode.SOURCE_UNREACHABLE, `The source could not be reached: ${err.message}`);
  throw err;
}

function countsOf(c: Record<string, number>): RunCounts {
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

/** How long starting the docset workflow may take before the request answers 503. */
const START_DEADLINE_MS = 10_000;
/**
 * How long a new run waits for the previous workflow of the docset to close. The previous run
 * records its outcome (so progress already says `isIndexing: false`) a moment before its workflow
 * closes; a re-index sent at once (issue #13's recipe) would otherwise be refused with 409.
 */
const PREVIOUS_RUN_CLOSE_WAIT_MS = 15_000;

function progressOf(c: StatusCounts, isIndexing: boolean): IndexingProgress {
  return {
    pendingCount: c.PENDING + c.CANCELLED,
    indexingCount: c.INDEXING,
    completedCount: c.COMPLETE,
    errorCount: c.ERROR,
    isIndexing,
  };
}

/**
 * The indexing API's use cases (POST /index, check-source, cancel, retry, delete docsets,
 * progress, summary) and the account-deletion clean-up. Every method takes the caller's account
 * id; Postgres is the source of truth for counters, Temporal for running work.
 */
@Injectable()
export class IndexingService {
  private readonly logger = new Logger('IndexingService');

  constructor(
    private readonly runs: RunStore,
    private readonly documentStore: DocumentLifecycleStore,
    private readonly docsets: DocsetCatalog,
    private readonly documents: DocumentCatalog,
    private readonly connectors: SourceConnectorRegistry,
    private readonly cipher: SourceCredentialsCipher,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly sync: SourceSync,
  ) {}

  async startIndex(accountId: number, cmd: IndexCommand): Promise<IndexAck | IndexSyncResult> {
    const connector = this.connectors.get(cmd.sourceType);
    const credentials = connector.parseCredentials(cmd.credentials);
    const fileTypes = cmd.targetIndexTypes?.length
      ? [...new Set(cmd.targetIndexTypes)]
      : [...INDEXABLE_FILE_TYPES];
    if (cmd.sourceType !== 'S3')
      await this.probe(accountId, cmd.docSetName, connector, credentials, fileTypes);

    const runId = randomUUID();
    const options: RunOptions = {
      kind: 'sync',
      fileTypes,
      forceReindex: cmd.forceReindex,
      scope: connector.scopeOf(credentials),
    };
    await this.insertRun(accountId, cmd.docSetName, {
      id: runId,
      sourceType: cmd.sourceType,
      options,
      credentialsEnc: this.cipher.encrypt(credentials, runId),
      accountName: cmd.accountName ?? null,
      summaryModel: cmd.summaryModel ?? null,
    });
    const handle = await this.startWorkflow(
      accountId,
      cmd.docSetName,
      cmd.sourceType,
      runId,
      'sync',
      options,
    );
    this.logger.log({ accountId, runId, sourceType: cmd.sourceType }, 'indexing run started');
    const ack: IndexAck = { message: 'Indexing job queued', docSetName: cmd.docSetName, jobId: runId };
    if (cmd.async) return ack;

    await handle.result().catch(() => undefined);
    const run = await this.runs.getRun(runId);
    const status = (run?.status === 'RUNNING' ? 'FAILED' : (run?.status ?? 'FAILED')) as RunOutcome;
    const message =
      status === 'COMPLETED'
        ? 'Indexing finished'
        : status === 'CANCELLED'
          ? 'Indexing was cancelled'
          : 'Indexing failed';
    return {
      ...ack,
      message,
      status,
      counts: countsOf(run?.counters ?? {}),
      ...(run?.error ? { error: run.error } : {}),
    };
  }

  async checkSource(accountId: number, cmd: CheckSourceCommand): Promise<SourceCheckResult> {
    const connector = this.connectors.get(cmd.sourceType);
    const credentials = connector.parseCredentials(cmd.credentials);
    const types = new Set<string>(cmd.targetIndexTypes?.length ? cmd.targetIndexTypes : INDEXABLE_FILE_TYPES);
    const sourceFileCount = await this.countSupported(connector, credentials, types);
    const existingDocumentCount = await this.docsets.documentCount(accountId, cmd.docSetName);
    return {
      sourceFileCount,
      existingDocumentCount,
      message: `The source is reachable: ${sourceFileCount} supported files; the docset has ${existingDocumentCount} documents`,
    };
  }

  async cancel(accountId: number, docSetName: string): Promise<IndexAck> {
    const run = await this.runs.openRun(accountId, docSetName);
    if (!run)
      throw new DomainError(ErrorCode.CONFLICT, `No indexing run is in progress for docset "${docSetName}"`, {
        docSetName,
      });
    try {
      await this.temporal.workflow.getHandle(run.workflowId).cancel();
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      await this.runs.finishRun(run.id, 'CANCELLED', null, {});
    }
    this.logger.log({ accountId, runId: run.id }, 'indexing run cancellation requested');
    return { message: 'Cancellation requested', docSetName, jobId: run.id };
  }

  async retry(
    accountId: number,
    documentId: string,
    allowed: (docSetName: string) => boolean,
  ): Promise<IndexAck & { documentId: string }> {
    const doc = await this.documents.findById(accountId, documentId);
    if (!doc || !allowed(doc.docSetName)) throw DomainError.notFound('Document not found');
    if (doc.status !== 'ERROR')
      throw new DomainError(
        ErrorCode.CONFLICT,
        `Only a document in ERROR can be retried; this one is ${doc.status}`,
        { status: doc.status },
      );
    const previous = doc.lastRunId ? await this.runs.getRun(doc.lastRunId) : null;
    const credentials = previous?.credentialsEnc
      ? this.cipher.decrypt(previous.credentialsEnc, previous.id)
      : undefined;
    const runId = randomUUID();
    const options: RunOptions = {
      kind: 'retry',
      fileTypes: [doc.fileType],
      forceReindex: true,
      scope: '',
      documentId,
    };
    await this.insertRun(
      accountId,
      doc.docSetName,
      {
        id: runId,
        sourceType: doc.sourceType,
        options,
        credentialsEnc: credentials === undefined ? null : this.cipher.encrypt(credentials, runId),
        accountName: null,
        summaryModel: previous?.summaryModel ?? null,
      },
      async (m) => {
        if (!(await this.documentStore.resetForRetry(m, accountId, documentId, runId)))
          throw new DomainError(ErrorCode.CONFLICT, 'Only a document in ERROR can be retried');
      },
    );
    await this.startWorkflow(accountId, doc.docSetName, doc.sourceType, runId, 'retry', options);
    return { message: 'Retry queued', docSetName: doc.docSetName, documentId, jobId: runId };
  }

  /** Cancels open runs, then deletes the docsets' chunks, documents, pages and runs. */
  async deleteDocsets(
    accountId: number,
    names: string[],
  ): Promise<{ message: string; docSetNames: string[]; deletedDocumentCount: number }> {
    const unique = [...new Set(names)];
    const owned = new Set(await this.docsets.knownDocsetNames(accountId, unique));
    const foreign = unique.filter((n) => !owned.has(n));
    if (foreign.length) throw DomainError.forbidden('Every docset to delete must belong to your account');
    await this.stopRuns(await this.runs.openRunsOfAccount(accountId, unique));
    for (const name of unique) await this.search.deleteByDocSet(String(accountId), name);
    const deletedDocumentCount = await this.documentStore.deleteDocsets(accountId, unique);
    this.logger.log({ accountId, docSets: unique.length, deletedDocumentCount }, 'docsets deleted');
    return { message: 'Docsets deleted', docSetNames: unique, deletedDocumentCount };
  }

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
          lastRun: r ? this.runSummary(r) : null,
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

  /** Account deletion: stop every run, then remove the account's chunks, documents and runs. */
  async deleteAccountData(accountId: number): Promise<void> {
    await this.stopRuns(await this.runs.openRunsOfAccount(accountId));
    await this.search.deleteByAccount(String(accountId));
    const names = await this.docsets.knownDocsetNames(accountId, null);
    if (names.length) await this.documentStore.deleteDocsets(accountId, names);
  }

  // ---- internals ----

  private runSummary(r: RunRow) {
    return {
      jobId: r.id,
      kind: r.options.kind,
      status: r.status,
      startedAt: new Date(r.createdAt).toISOString(),
      finishedAt: r.finishedAt ? new Date(r.finishedAt).toISOString() : null,
      error: r.error,
      counts: countsOf(r.counters ?? {}),
    };
  }

  private async probe(
    accountId: number,
    docSetName: string,
    connector: SourceConnector,
    credentials: unknown,
    fileTypes: string[],
  ): Promise<void> {
    const found = await this.countSupported(connector, credentials, new Set(fileTypes));
    if (
      found === 0 &&
      (await this.docsets.documentCount(accountId, docSetName)) > 0 &&
      // Emptied at the source: the change feed reports every document's file deleted.
      !(
        isIncremental(connector) &&
        (await this.sync
          .emptinessExplained(accountId, docSetName, connector, credentials)
          .catch(sourceFailure))
      )
    )
      throw new DomainError(
        ErrorCode.SOURCE_EMPTY,
        'The source has no supported files while the docset already has documents; nothing was changed',
      );
  }

  private async countSupported(
    connector: SourceConnector,
    credentials: unknown,
    types: Set<string>,
  ): Promise<number> {
    try {
      await connector.check(credentials);
      let count = 0;
      let token: string | null = null;
      do {
        const page = await connector.listPage(credentials, token, LISTING_PAGE_SIZE);
        for (const o of page.objects) {
          const t = fileTypeOf(o.fileName);
          if (t && types.has(t)) count++;
        }
        token = page.nextPageToken;
      } while (token);
      return count;
    } catch (err) {
      return sourceFailure(err);
    }
  }

  /** Inserts the RUNNING row; the partial unique index turns a second open run into 409. */
  private async insertRun(
    accountId: number,
    docSetName: string,
    r: Pick<RunRow, 'id' | 'sourceType' | 'options' | 'credentialsEnc' | 'summaryModel'> & {
      accountName: string | null;
    },
    alsoInTransaction?: (m: EntityManager) => Promise<void>,
  ): Promise<void> {
    const row = { ...r, accountId, docSetName, workflowId: docsetWorkflowId(accountId, docSetName) };
    for (let attempt = 0; ; attempt++) {
      try {
        await this.runs.transaction(async (m) => {
          await this.runs.insertRun(row, m);
          await alsoInTransaction?.(m);
        });
        return;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        if (attempt > 0 || !(await this.closeIfStale(accountId, docSetName))) throw inProgress(docSetName);
      }
    }
  }

  /** Closes a RUNNING row whose workflow is no longer running; true if it did. */
  private async closeIfStale(accountId: number, docSetName: string): Promise<boolean> {
    const open = await this.runs.openRun(accountId, docSetName);
    if (!open) return true;
    if (Date.now() - new Date(open.createdAt).getTime() < STALE_RUN_MS) return false;
    try {
      const d = await this.temporal.workflow.getHandle(open.workflowId).describe();
      if (d.status.name === 'RUNNING') return false;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) return false;
    }
    this.logger.warn({ accountId, runId: open.id }, 'closing a run whose workflow is no longer running');
    await this.runs.finishRun(open.id, 'FAILED', 'The run ended without recording its outcome', {});
    return true;
  }

  private async startWorkflow(
    accountId: number,
    docSetName: string,
    sourceType: SourceType,
    runId: string,
    kind: 'sync' | 'retry',
    options: RunOptions,
  ) {
    const input: IndexDocsetInput = {
      runId,
      accountId,
      docSetName,
      sourceType,
      kind,
      windowSize: this.cfg.indexingConcurrency,
      childrenPerRun: this.cfg.indexingChildrenPerRun,
    };
    const what = kind === 'retry' ? `Retry document ${options.documentId}` : `Index ${sourceType} source`;
    const start = () =>
      // A deadline bounds the SDK's gRPC retries: with Temporal down the request answers 503 in
      // seconds instead of hanging (test/faults).
      this.temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        this.temporal.workflow.start<IndexDocsetWorkflow>(INDEX_DOCSET_WORKFLOW, {
          taskQueue: this.cfg.temporalTaskQueue,
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
            `window: ${input.windowSize} documents, continue-as-new every ${input.childrenPerRun} children`,
          ].join('\n'),
        }),
      );
    try {
      try {
        return await start();
      } catch (err) {
        // This run's row is the docset's only open one, so a workflow still running under the id is
        // the previous run closing after it recorded its outcome: wait for it, then start.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        if (!(await this.previousRunClosed(docsetWorkflowId(accountId, docSetName)))) throw err;
        return await start();
      }
    } catch (err) {
      const conflict = err instanceof WorkflowExecutionAlreadyStartedError;
      await this.runs.finishRun(
        runId,
        'FAILED',
        conflict ? 'Another run was already open' : 'The run could not be started',
        {},
      );
      if (conflict) throw inProgress(docSetName);
      this.logger.error(
        { accountId, runId, errName: (err as Error)?.name },
        'could not start the indexing workflow',
      );
      throw new DomainError(
        ErrorCode.DEPENDENCY_UNAVAILABLE,
        'The indexing service is unavailable; try again later',
      );
    }
  }

  /** Waits (bounded) for the running workflow under `workflowId` to close; true once it has. */
  private async previousRunClosed(workflowId: string): Promise<boolean> {
    const handle = this.temporal.workflow.getHandle(workflowId);
    return Promise.race([
      handle.result().then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((r) => setTimeout(() => r(false), PREVIOUS_RUN_CLOSE_WAIT_MS).unref()),
    ]);
  }

  private async stopRuns(runs: RunRow[]): Promise<void> {
    await Promise.all(
      runs.map(async (run) => {
        const handle = this.temporal.workflow.getHandle(run.workflowId);
        try {
          await handle.cancel();
          const closed = await Promise.race([
            handle.result().then(
              () => true,
              () => true,
            ),
            new Promise<boolean>((r) => setTimeout(() => r(false), CANCEL_WAIT_MS).unref()),
          ]);
          if (!closed) await handle.terminate('docset or account deleted');
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
        await this.runs.finishRun(run.id, 'CANCELLED', null, {});
      }),
    );
  }
}
