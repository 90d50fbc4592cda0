import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { RunStatus, SourceType } from '@docqa/db';

export interface RunRow {
  id: string;
  accountId: number;
  docSetName: string;
  workflowId: string;
  sourceType: SourceType;
  status: RunStatus;
  options: RunOptions;
  credentialsEnc: string | null;
  summaryModel: string | null;
  counters: Record<string, number>;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** What a run was asked to do (index_runs.options). */
export interface RunOptions {
  kind: 'sync' | 'retry';
  /** File types this run includes. */
  fileTypes: string[];
  forceReindex: boolean;
  /** OCR the PDF pages without a text layer; absent (runs opened before it existed) is true. */
  ocr?: boolean;
  /** sourceId prefix the listing covers (removal never reaches outside it). */
  scope: string;
  /** Retry runs: the one document. */
  documentId?: string;
}

const RUN_COLUMNS = `id, account_id AS "accountId", docset_name AS "docSetName", workflow_id AS "workflowId",
  source_type AS "sourceType", status, options, credentials_enc AS "credentialsEnc",
  summary_model AS "summaryModel", counters, error, created_at AS "createdAt", finished_at AS "finishedAt"`;

/**
 * The indexing run store: `index_runs` rows (open, read, count, close). Methods that a caller
 * reaches with a tenant's input take the account id; the worker-side methods are keyed by run ids
 * that only the workflow (started by the API for that account) hands out.
 */
@Injectable()
export class RunStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** One transaction for opening a run together with another write (a retry's document reset). */
  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  async insertRun(
    r: {
      id: string;
      accountId: number;
      docSetName: string;
      workflowId: string;
      sourceType: SourceType;
      options: RunOptions;
      credentialsEnc: string | null;
      accountName: string | null;
      summaryModel: string | null;
    },
    m?: EntityManager,
  ): Promise<void> {
    await (m ?? this.ds.manager).query(
      `INSERT INTO index_runs (id, account_id, docset_name, workflow_id, source_type, status, options,
         credentials_enc, account_name, summary_model)
       VALUES ($1, $2, $3, $4, $5, 'RUNNING', $6, $7, $8, $9)`,
      [
        r.id,
        r.accountId,
        r.docSetName,
        r.workflowId,
        r.sourceType,
        JSON.stringify(r.options),
        r.credentialsEnc,
        r.accountName,
        r.summaryModel,
      ],
    );
  }

  async getRun(runId: string): Promise<RunRow | null> {
    const rows: RunRow[] = await this.ds.query(`SELECT ${RUN_COLUMNS} FROM index_runs WHERE id = $1`, [
      runId,
    ]);
    return rows[0] ?? null;
  }

  async openRun(accountId: number, docSetName: string): Promise<RunRow | null> {
    const rows: RunRow[] = await this.ds.query(
      `SELECT ${RUN_COLUMNS} FROM index_runs WHERE account_id = $1 AND docset_name = $2 AND status = 'RUNNING'`,
      [accountId, docSetName],
    );
    return rows[0] ?? null;
  }

  async openRunsOfAccount(accountId: number, docSetNames?: string[]): Promise<RunRow[]> {
    return this.ds.query(
      `SELECT ${RUN_COLUMNS} FROM index_runs
        WHERE account_id = $1 AND status = 'RUNNING' AND ($2::text[] IS NULL OR docset_name = ANY($2))`,
      [accountId, docSetNames ?? null],
    );
  }

  /** The latest run of each docset of the account. */
  async lastRuns(accountId: number): Promise<RunRow[]> {
    return this.ds.query(
      `SELECT DISTINCT ON (docset_name) ${RUN_COLUMNS} FROM index_runs
        WHERE account_id = $1 ORDER BY docset_name, created_at DESC`,
      [accountId],
    );
  }

  /**
   * Closes a run: documents it left PENDING or INDEXING become CANCELLED (re-runnable), the staged
   * listing is dropped, and the row gets its final status and counters. Idempotent.
   */
  async finishRun(
    runId: string,
    status: Exclude<RunStatus, 'RUNNING'>,
    error: string | null,
    counters: Record<string, number>,
  ): Promise<void> {
    await this.ds.transaction(async (m) => {
      await m.query(
        `UPDATE documents SET status = 'CANCELLED', updated_at = now()
          WHERE last_run_id = $1 AND status IN ('PENDING', 'INDEXING')`,
        [runId],
      );
      await m.query(`DELETE FROM index_run_listing WHERE run_id = $1`, [runId]);
      await m.query(
        `UPDATE index_runs SET status = $2, error = $3, counters = counters || $4::jsonb, finished_at = now(), updated_at = now()
          WHERE id = $1 AND status = 'RUNNING'`,
        [runId, status, error, JSON.stringify(counters)],
      );
    });
  }

  async mergeRunCounters(runId: string, counters: Record<string, number>): Promise<void> {
    await this.ds.query(
      `UPDATE index_runs SET counters = counters || $2::jsonb, updated_at = now() WHERE id = $1`,
      [runId, JSON.stringify(counters)],
    );
  }
}
