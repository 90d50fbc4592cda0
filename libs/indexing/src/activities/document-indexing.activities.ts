import { Inject, Injectable } from '@nestjs/common';
import { INDEXING_CONFIG, IndexingConfig } from '@docqa/common';
import { Context } from '@temporalio/activity';
import { describeOcrProgress } from '../extraction/ocr/page-selection';
import { DocumentPipeline, SmallDocumentResult } from '../pipeline/document-pipeline';
import { runActivity } from './failures';

export interface DocumentRef {
  documentId: string;
  runId: string;
}

/**
 * Per-document activities of indexDocumentWorkflow. Each makes one call into DocumentPipeline.
 * Pages and chunks travel through Postgres and the search index, never through payloads.
 */
/**
 * Chunks a document may have to be indexed by indexSmallDocument in one step: one embedder call
 * (EMBED_BATCH) and one search write. Larger documents continue with the separate, resumable steps.
 */
export const SMALL_DOCUMENT_MAX_CHUNKS = 96;

@Injectable()
export class DocumentIndexingActivities {
  /** The first wait before a step whose dependency was unavailable is tried again (failures.ts). */
  private readonly retryMs: number;

  constructor(
    private readonly pipeline: DocumentPipeline,
    @Inject(INDEXING_CONFIG) indexing: IndexingConfig,
  ) {
    this.retryMs = indexing.unavailableRetryMs;
  }

  /**
   * A small document's whole pipeline in one activity (issue 17): marks it INDEXING, downloads,
   * extracts, chunks, embeds, upserts and records it COMPLETE (`complete`). A document of more
   * than SMALL_DOCUMENT_MAX_CHUNKS chunks stops once its pages are saved (`large`): the workflow
   * then runs indexDocumentChunks and finaliseDocument. `gone`: removed, or no longer this run's.
   * Heartbeats while it downloads, parses and waits on the embedder and the search engine (each
   * bounded by a deadline); cancellation aborts them, and a retry starts over (every write is
   * idempotent). While OCR reads a scanned page the heartbeat details name it ("OCR: reading page
   * 7 (2 of 5 pages without text)"), shown with the pending activity in the Temporal UI (an
   * activity's summary is fixed when the workflow schedules it, before any page is known).
   */
  async indexSmallDocument(input: DocumentRef): Promise<SmallDocumentResult> {
    return runActivity(this.retryMs, async ({ signal, progress, waiting }) =>
      waiting(
        this.pipeline.indexSmall(input.documentId, input.runId, {
          maxChunks: SMALL_DOCUMENT_MAX_CHUNKS,
          onProgress: (next) => progress(next),
          onOcrPage: (p) => progress(describeOcrProgress(p)),
          signal,
        }),
      ),
    );
  }

  /**
   * Marks the document INDEXING, downloads it and extracts its pages into document_pages
   * (heartbeats while the file is parsed, naming the page OCR reads). `gone` when the document was
   * removed meanwhile.
   */
  async extractDocument(
    input: DocumentRef,
  ): Promise<{ gone: boolean; pageCount: number; unchanged: boolean; chunkCount: number | null }> {
    return runActivity(this.retryMs, async ({ signal, progress, waiting }) => {
      // Every wait inside is bounded (download by the source's limits, parse by its thread deadline).
      const r = await waiting(
        this.pipeline.extract(input.documentId, input.runId, signal, (p) => progress(describeOcrProgress(p))),
      );
      return {
        gone: r.gone,
        pageCount: r.pageCount,
        unchanged: r.unchanged,
        chunkCount: r.chunkCount ?? null,
      };
    });
  }

  /**
   * Chunk, embed in batches and upsert; heartbeats the next chunk index after each embedding batch
   * and write, and keeps heartbeating it while waiting on the embedder or the search engine (calls
   * bounded by their deadlines). A retry resumes from the last heartbeat. Null when the document was
   * deleted meanwhile.
   */
  async indexDocumentChunks(input: DocumentRef): Promise<{ chunkCount: number } | null> {
    return runActivity(this.retryMs, async ({ signal, progress, waiting }) => {
      const details = Context.current().info.heartbeatDetails;
      const resumeFrom = typeof details === 'number' ? details : 0;
      return waiting(
        this.pipeline.indexChunks(input.documentId, input.runId, {
          resumeFrom,
          onProgress: (next) => progress(next),
          signal,
        }),
      );
    });
  }

  /**
   * Final status of the document: COMPLETE with its chunk count, or ERROR (with the readable reason)
   * or CANCELLED, which drop its pages and partial chunks.
   */
  async finaliseDocument(
    input: DocumentRef &
      ({ status: 'COMPLETE'; chunkCount: number } | { status: 'ERROR' | 'CANCELLED'; reason: string | null }),
  ): Promise<void> {
    // No heartbeat while it runs: a step stuck here (its chunk delete waiting on a wedged engine)
    // is cancelled by the SDK when its heartbeat timeout elapses, and stops.
    return runActivity(this.retryMs, async ({ signal }) => {
      if (input.status === 'COMPLETE')
        await this.pipeline.complete(input.documentId, input.runId, input.chunkCount);
      else await this.pipeline.fail(input.documentId, input.runId, input.status, input.reason, signal);
    });
  }
}
