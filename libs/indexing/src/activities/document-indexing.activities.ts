import { Injectable } from '@nestjs/common';
import { Context } from '@temporalio/activity';
import { DocumentPipeline } from '../pipeline/document-pipeline';
import { runActivity } from './failures';

export interface DocumentRef {
  documentId: string;
  runId: string;
}

/**
 * Per-document activities of indexDocumentWorkflow. Each makes one call into DocumentPipeline.
 * Pages and chunks travel through Postgres and the search index, never through payloads.
 */
@Injectable()
export class DocumentIndexingActivities {
  constructor(private readonly pipeline: DocumentPipeline) {}

  /**
   * Marks the document INDEXING, downloads it and extracts its pages into document_pages
   * (heartbeats while the file is parsed). `gone` when the document was removed meanwhile.
   */
  async extractDocument(
    input: DocumentRef,
  ): Promise<{ gone: boolean; pageCount: number; unchanged: boolean; chunkCount: number | null }> {
    return runActivity(async ({ signal, waiting }) => {
      // Every wait inside is bounded (download by the source's limits, parse by its thread deadline).
      const r = await waiting(this.pipeline.extract(input.documentId, input.runId, signal));
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
    return runActivity(async ({ signal, progress, waiting }) => {
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
    return runActivity(({ signal }) =>
      input.status === 'COMPLETE'
        ? this.pipeline.complete(input.documentId, input.runId, input.chunkCount)
        : this.pipeline.fail(input.documentId, input.runId, input.status, input.reason, signal),
    );
  }
}
