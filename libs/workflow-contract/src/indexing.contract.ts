/**
 * Contract of the indexing workflows, shared by the workflows, the worker and the API: names, ids,
 * inputs and results, the progress query. It imports nothing but Temporal's workflow-safe
 * packages, so the API can use it without the worker.
 */
import { defineQuery } from '@temporalio/workflow';

export const INDEX_DOCSET_WORKFLOW = 'indexDocsetWorkflow';
export const INDEX_DOCUMENT_WORKFLOW = 'indexDocumentWorkflow';

/** One open run per docset: Temporal refuses a second workflow with the same id. */
export function docsetWorkflowId(accountId: number, docSetName: string): string {
  return `docset-index/${accountId}/${docSetName}`;
}

export function documentWorkflowId(documentId: string): string {
  return `document-index/${documentId}`;
}

export type DocsetRunKind = 'sync' | 'retry';
export type DocsetRunPhase = 'listing' | 'planning' | 'removing' | 'indexing' | 'finishing' | 'done';

export interface DocsetRunCounters {
  /** Supported files of the run's types found in the source. */
  listed: number;
  /** Other objects seen in the listing (unsupported types, folders). */
  ignored: number;
  new: number;
  changed: number;
  unchanged: number;
  removed: number;
  /** Child workflows started (all generations of the run). */
  started: number;
  completed: number;
  failed: number;
  skipped: number;
  cancelled: number;
}

/** What continue-as-new carries into the next generation of the run. */
export interface DocsetRunCarry {
  phase: DocsetRunPhase;
  pageToken: string | null;
  /** Last document id whose child was started (children are started in id order). */
  afterId: string | null;
  counters: DocsetRunCounters;
  /** 0 for the first workflow run, +1 per continue-as-new. */
  generation: number;
}

export interface IndexDocsetInput {
  /** index_runs.id, the jobId. Credentials stay in Postgres; payloads carry this id. */
  runId: string;
  accountId: number;
  docSetName: string;
  sourceType: string;
  kind: DocsetRunKind;
  /** Documents indexed at the same time (INDEXING_CONCURRENCY). */
  windowSize: number;
  /** Children per workflow run before continue-as-new (INDEXING_CHILDREN_PER_RUN). */
  childrenPerRun: number;
  carry?: DocsetRunCarry;
}

export interface DocsetRunResult {
  status: 'COMPLETED';
  counters: DocsetRunCounters;
}

export interface DocsetRunProgress {
  runId: string;
  phase: DocsetRunPhase;
  counters: DocsetRunCounters;
  /** Children running now. */
  inFlight: number;
  windowSize: number;
  generation: number;
}

/** Live progress of a docset run, from workflow state. */
export const progressQuery = defineQuery<DocsetRunProgress>('progress');

export interface IndexDocumentInput {
  documentId: string;
  runId: string;
}

export interface IndexDocumentResult {
  status: 'COMPLETE' | 'SKIPPED';
  pageCount?: number;
  chunkCount?: number;
}

/**
 * Signatures of the workflow functions: the client starts them by name (INDEX_*_WORKFLOW) with
 * these types, so the API needs no import of the workflow code.
 */
export type IndexDocsetWorkflow = (input: IndexDocsetInput) => Promise<DocsetRunResult>;
export type IndexDocumentWorkflow = (input: IndexDocumentInput) => Promise<IndexDocumentResult>;

export function emptyCounters(): DocsetRunCounters {
  return {
    listed: 0,
    ignored: 0,
    new: 0,
    changed: 0,
    unchanged: 0,
    removed: 0,
    started: 0,
    completed: 0,
    failed: 0,
    skipped: 0,
    cancelled: 0,
  };
}
