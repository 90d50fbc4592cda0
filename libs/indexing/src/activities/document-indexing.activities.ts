import { Injectable } from '@nestjs/common';
import { Context } from '@temporalio/activity';
import { DocumentPipeline } from '../pipeline/document-pipeline';
import { asActivity, whileHeartbeating } from './failures';

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
    return asActivity(async () => {
      const ctx = Context.current();
      const r = await whileHeartbeating(
        () => ctx.heartbeat(),
        this.pipeline.extract(input.documentId, input.runId, ctx.cancellationSignal),
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
   * Chunk, embed in batches and upsert; heartbeats the next chunk index after each write and
   * resumes from the last heartbeat when retried. Null when the document was deleted meanwhile.
   */
  async indexDocumentChunks(input: DocumentRef): Promise<{ chunkCount: number } | null> {
    return asActivity(async () => {
      const ctx = Context.current();
      const resumeFrom =
        typeof ctx.info.heartbeatDetails === 'number' ? (ctx.info.heartbeatDetails as number) : 0;
      return this.pipeline.indexChunks(input.documentId, input.runId, {
        resumeFrom,
        onProgress: (next) => ctx.heartbeat(next),
        signal: ctx.cancellationSignal,
      });
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
    return asActivity(() =>
      input.status === 'COMPLETE'
        ? this.pipeline.complete(input.documentId, input.runId, input.chunkCount)
        : this.pipeline.fail(input.documentId, input.runId, input.status, input.reason),
    );
  }
}
