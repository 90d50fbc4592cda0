import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  patched,
  proxyActivities,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { DocumentIndexingActivities } from '@docqa/indexing/activities/document-indexing.activities';
import {
  BOOKKEEPING_ACTIVITY,
  EXTRACT_ACTIVITY,
  INDEX_CHUNKS_ACTIVITY,
  SMALL_DOCUMENT_ACTIVITY,
} from './indexing.activity-options';
import {
  DOCUMENT_FAILED,
  IndexDocumentInput,
  IndexDocumentResult,
  PERMANENT_SOURCE_FAILURES,
  REJECTED_DOCUMENT_FAILURES,
  RUN_FAILURES,
} from '@docqa/workflow-contract';

const { finaliseDocument } = proxyActivities<DocumentIndexingActivities>({
  ...BOOKKEEPING_ACTIVITY,
  summary: 'Record the final status (COMPLETE, ERROR or CANCELLED)',
});
const { extractDocument } = proxyActivities<DocumentIndexingActivities>({
  ...EXTRACT_ACTIVITY,
  summary: 'Mark INDEXING, download the file, extract its pages into Postgres',
});
const { indexDocumentChunks } = proxyActivities<DocumentIndexingActivities>({
  ...INDEX_CHUNKS_ACTIVITY,
  summary: 'Chunk the pages, embed in batches, upsert into the search index',
});

const { indexSmallDocument } = proxyActivities<DocumentIndexingActivities>({
  ...SMALL_DOCUMENT_ACTIVITY,
  summary: 'Index in one step: mark INDEXING, download, extract, chunk, embed, upsert, COMPLETE',
});

/**
 * Patch id of the small-document path (issue 17): executions started before it (extract, index
 * chunks, finalise) replay on the old branch; new ones record the marker and start with
 * indexSmallDocument. Remove the old branch (deprecatePatch, then the patch) once no execution
 * of the old shape can still be open.
 */
export const SMALL_DOCUMENT_PATCH = 'index-small-document-in-one-step';

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
 * Indexes one document (workflow id `document-index/{documentId}`): a small document in one
 * activity (indexSmallDocument: extract, chunk, embed, upsert, COMPLETE); a large one is extracted
 * by that activity (marks it INDEXING, downloads, pages into Postgres), then its chunks are indexed
 * (resumable) and it is finalised COMPLETE. A permanent or exhausted
 * failure first records the document ERROR with a readable reason, then fails the workflow with
 * that reason (type DocumentIndexingFailed); cancellation leaves the document CANCELLED,
 * re-runnable by the next run, and is rethrown.
 */
export async function indexDocumentWorkflow(input: IndexDocumentInput): Promise<IndexDocumentResult> {
  try {
    if (patched(SMALL_DOCUMENT_PATCH)) {
      const r = await indexSmallDocument(input);
      if (r.outcome === 'gone') return { status: 'SKIPPED' };
      if (r.outcome === 'complete')
        return { status: 'COMPLETE', pageCount: r.pageCount, chunkCount: r.chunkCount };
      // A large document: its pages are saved; chunks in the resumable step, then the swap.
      const indexed = await indexDocumentChunks(input);
      if (!indexed) return { status: 'SKIPPED' };
      await finaliseDocument({ ...input, status: 'COMPLETE', chunkCount: indexed.chunkCount });
      return { status: 'COMPLETE', pageCount: r.pageCount, chunkCount: indexed.chunkCount };
    }
    const extracted = await extractDocument(input);
    if (extracted.gone) return { status: 'SKIPPED' };
    let chunkCount = extracted.chunkCount;
    if (!extracted.unchanged || chunkCount === null) {
      const indexed = await indexDocumentChunks(input);
      if (!indexed) return { status: 'SKIPPED' };
      chunkCount = indexed.chunkCount;
    }
    await finaliseDocument({ ...input, status: 'COMPLETE', chunkCount });
    return { status: 'COMPLETE', pageCount: extracted.pageCount, chunkCount };
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() =>
        finaliseDocument({ ...input, status: 'CANCELLED', reason: null }),
      );
      throw err;
    }
    if (err instanceof ActivityFailure) {
      const reason = reasonOf(err);
      await finaliseDocument({ ...input, status: 'ERROR', reason });
      // The document is recorded ERROR; the workflow fails too, so operators find it in Temporal.
      throw ApplicationFailure.create({
        type: DOCUMENT_FAILED,
        message: reason,
        nonRetryable: true,
        cause: err,
      });
    }
    throw err;
  }
}
