import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { DocumentIndexingActivities } from '@docqa/indexing/activities/document-indexing.activities';
import { BOOKKEEPING_ACTIVITY, EXTRACT_ACTIVITY, INDEX_CHUNKS_ACTIVITY } from './indexing.activity-options';
import {
  IndexDocumentInput,
  IndexDocumentResult,
  PERMANENT_SOURCE_FAILURES,
  REJECTED_DOCUMENT_FAILURES,
  RUN_FAILURES,
} from './indexing.contract';

const { beginDocumentIndexing } = proxyActivities<DocumentIndexingActivities>({
  ...BOOKKEEPING_ACTIVITY,
  summary: 'Mark the document INDEXING',
});
const { completeDocumentIndexing } = proxyActivities<DocumentIndexingActivities>({
  ...BOOKKEEPING_ACTIVITY,
  summary: 'Mark the document COMPLETE',
});
const { failDocumentIndexing } = proxyActivities<DocumentIndexingActivities>({
  ...BOOKKEEPING_ACTIVITY,
  summary: 'Record the outcome (ERROR or CANCELLED) and drop partial chunks',
});
const { extractDocument } = proxyActivities<DocumentIndexingActivities>({
  ...EXTRACT_ACTIVITY,
  summary: 'Download the file and extract its pages into Postgres',
});
const { indexDocumentChunks } = proxyActivities<DocumentIndexingActivities>({
  ...INDEX_CHUNKS_ACTIVITY,
  summary: 'Chunk the pages, embed in batches, upsert into the search index',
});

const READABLE: ReadonlySet<string> = new Set([
  ...REJECTED_DOCUMENT_FAILURES,
  ...PERMANENT_SOURCE_FAILURES,
  ...RUN_FAILURES,
]);

/** The reason a document ends ERROR: the permanent failure's own message, else a summary line. */
export function reasonOf(err: ActivityFailure): string {
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.type && READABLE.has(cause.type)) return cause.message;
  if (cause instanceof TimeoutFailure) return `Indexing step ${err.activityType} timed out`;
  const type = cause instanceof ApplicationFailure ? cause.type : cause?.name;
  if (cause instanceof ApplicationFailure && type === 'SourceUnavailable')
    return `${cause.message} (retries exhausted)`;
  return `Indexing step ${err.activityType} failed after retries (${type ?? 'unknown error'})`;
}

/**
 * Indexes one document (workflow id `document-index/{documentId}`): begin, extract, index chunks,
 * complete. A permanent or exhausted failure ends the document ERROR with a readable reason and
 * the workflow completes (the outcome is the document's status); cancellation leaves it CANCELLED,
 * re-runnable by the next run, and is rethrown.
 */
export async function indexDocumentWorkflow(input: IndexDocumentInput): Promise<IndexDocumentResult> {
  try {
    const doc = await beginDocumentIndexing(input);
    if (!doc) return { status: 'SKIPPED' };
    const extracted = await extractDocument(input);
    let chunkCount = extracted.chunkCount;
    if (!extracted.unchanged || chunkCount === null) {
      const indexed = await indexDocumentChunks(input);
      if (!indexed) return { status: 'SKIPPED' };
      chunkCount = indexed.chunkCount;
    }
    await completeDocumentIndexing({ ...input, chunkCount });
    return { status: 'COMPLETE', pageCount: extracted.pageCount, chunkCount };
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() =>
        failDocumentIndexing({ ...input, status: 'CANCELLED', reason: null }),
      );
      throw err;
    }
    if (err instanceof ActivityFailure) {
      const reason = reasonOf(err);
      await failDocumentIndexing({ ...input, status: 'ERROR', reason });
      return { status: 'ERROR', error: reason };
    }
    throw err;
  }
}
