import { ActivityCancellationType, type ActivityOptions } from '@temporalio/workflow';
import {
  PERMANENT_SOURCE_FAILURES,
  REJECTED_DOCUMENT_FAILURES,
  RUN_FAILURES,
} from '@docqa/workflow-contract';

const PERMANENT = [...PERMANENT_SOURCE_FAILURES, ...RUN_FAILURES];

/** Postgres bookkeeping (begin/complete/fail a document, next batch, finish a run): short, retried long. */
export const BOOKKEEPING_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 20,
    nonRetryableErrorTypes: [...RUN_FAILURES],
  },
};

/** One page of the source listing: network-bound; bad credentials or a missing bucket fail at once. */
export const LIST_SOURCE_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '1 minute',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 6,
    nonRetryableErrorTypes: PERMANENT,
  },
};

/** Planning and removal: set-based SQL and index deletes; removal heartbeats per batch. */
export const PLAN_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 6,
    nonRetryableErrorTypes: PERMANENT,
  },
};

/**
 * Download + extraction. Heartbeats every 2 s while parsing, so a lost worker is noticed within
 * 20 s and cancellation reaches it. Unsupported, encrypted, corrupt or empty files never retry.
 * Two hours: OCR reads a scanned page in seconds of CPU (docs/benchmarks/ocr.md) and the
 * documents of a window share its 2 workers, so a long scan takes far longer than a parse (each
 * page has its own deadline; the heartbeat still catches a lost worker).
 */
export const EXTRACT_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '20 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [...REJECTED_DOCUMENT_FAILURES, ...PERMANENT],
  },
};

/**
 * Chunk + embed + upsert. Heartbeats the next chunk after each write and resumes from it on retry;
 * waits for the activity to acknowledge cancellation so no write lands after the document's cleanup.
 */
export const INDEX_CHUNKS_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 8,
    nonRetryableErrorTypes: [...RUN_FAILURES],
  },
};

/**
 * A small document's whole pipeline (download, extract, chunk, embed, upsert, complete) in one
 * activity: extraction's limits (heartbeats while parsing, permanent document failures never
 * retried) and the chunk step's attempts (it writes to the engine) and wait for an acknowledged
 * cancellation.
 */
export const SMALL_DOCUMENT_ACTIVITY: ActivityOptions = {
  ...EXTRACT_ACTIVITY,
  retry: { ...EXTRACT_ACTIVITY.retry, maximumAttempts: INDEX_CHUNKS_ACTIVITY.retry?.maximumAttempts },
};
