import { filingMetadata, FilingMetadata } from '@docqa/text';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { abortable, docqaMetrics, embeddingSpaceKey, INDEXING_CONFIG, IndexingConfig } from '@docqa/common';
import { Embedder, EMBEDDER } from '@docqa/embeddings';
import { ChunkRecord, hasMaintenance, SEARCH_INDEX, SearchIndex, searchWritesBlocked } from '@docqa/search';
import { DocumentChunk, contextFields } from '../chunking/document-chunks';
import type { DocumentContext } from '../chunking/document-context';
import { DocumentPreparer } from '../chunking/document-preparer';
import { DocumentExtractor } from '../extraction/extractor';
import type { OcrProgress } from '../extraction/ocr/page-selection';
import { DocumentLifecycleStore, DocumentRow } from '../persistence/document-lifecycle.store';
import { RunStore } from '../persistence/run.store';
import { DocumentSummarizer, LOCAL_SUMMARY_MODEL } from '../summary/summarizer';
import { assertWithinFileLimit, withinFileLimit } from './file-size-limit';
import { RunGoneError } from './pipeline-errors';
import { RunCredentials } from './run-credentials';

/** Texts per embedder call (Cohere accepts at most 96). */
export const EMBED_BATCH = 96;
/** Chunks per search-index write; progress is recorded after each write. */
export const UPSERT_BATCH = 384;

export interface ExtractResult {
  /** The document was removed, or a newer run owns it: nothing was done. */
  gone: boolean;
  pageCount: number;
  /** Same bytes as the indexed version (content hash): chunks are kept, nothing to re-embed. */
  unchanged: boolean;
  /** The kept chunk count when unchanged. */
  chunkCount?: number;
}

/** What the small-document step did (see DocumentPipeline.indexSmall). */
export type SmallDocumentResult =
  | { outcome: 'gone' }
  | { outcome: 'complete'; pageCount: number; chunkCount: number }
  | { outcome: 'large'; pageCount: number };

export interface IndexChunksOptions {
  /** First chunk to write (a retried attempt resumes where the last heartbeat said). */
  resumeFrom?: number;
  /** Called after each write with the index of the next chunk. */
  onProgress?: (nextChunk: number) => void;
  signal?: AbortSignal;
}

/**
 * The index records of a document's chunks (one place, shared by indexing and re-embedding), as
 * generation `generation` of the document (part of the chunk ids: see SearchIndex.deleteChunks),
 * each with its document context (title, identifying terms, section).
 */
export function chunkRecords(
  doc: DocumentRow,
  context: DocumentContext,
  chunks: DocumentChunk[],
  vectors: number[][],
  generation: number,
): ChunkRecord[] {
  return chunks.map((c, i) => ({
    accountId: doc.accountId,
    docSetName: doc.docSetName,
    documentId: doc.id,
    fileName: doc.fileName,
    pageNumber: String(c.pageNumber),
    sourceType: doc.sourceType,
    sourceId: doc.sourceId,
    chunkIndex: c.chunkIndex,
    text: c.text,
    ...contextFields(context, c),
    embedding: vectors[i],
    generation,
  }));
}

/**
 * Per-document steps: begin, extract (download + pages into document_pages), index chunks
 * (chunk + embed + upsert, batched and resumable), complete or fail. Each step is idempotent, so
 * Temporal may retry it on any worker.
 */
@Injectable()
export class DocumentPipeline {
  private readonly logger = new Logger('DocumentPipeline');

  constructor(
    private readonly store: DocumentLifecycleStore,
    private readonly runs: RunStore,
    private readonly credentials: RunCredentials,
    private readonly extractor: DocumentExtractor,
    private readonly summarizer: DocumentSummarizer,
    private readonly preparer: DocumentPreparer,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(INDEXING_CONFIG) private readonly indexing: IndexingConfig,
  ) {}

  /**
   * Marks the document INDEXING (PENDING -> INDEXING for this run), downloads the file, extracts
   * its pages into Postgres and stores the summary. Stops between steps once `signal` aborts.
   */
  async extract(
    documentId: string,
    runId: string,
    signal?: AbortSignal,
    onOcrPage?: (p: OcrProgress) => void,
  ): Promise<ExtractResult> {
    const r = await this.read(documentId, runId, signal, onOcrPage);
    if (r.kind !== 'extracted') return r.result;
    await this.store.savePages(documentId, r.pages, r.meta);
    return { gone: false, pageCount: r.pages.length, unchanged: false };
  }

  /**
   * The whole pipeline of a small document in one step (one activity, issue 17): mark INDEXING,
   * download, extract, chunk, embed, upsert and complete, with the pages and the chunk count saved
   * in one transaction and no page read back. A document of more than `maxChunks` chunks stops
   * after its pages are saved (`large`): the caller indexes its chunks and completes it in the
   * separate, resumable steps. Idempotent like the separate steps, so a retry starts over safely.
   */
  async indexSmall(
    documentId: string,
    runId: string,
    o: {
      maxChunks: number;
      signal?: AbortSignal;
      onProgress?: (nextChunk: number) => void;
      /** Called as OCR starts reading each page without text. */
      onOcrPage?: (p: OcrProgress) => void;
    },
  ): Promise<SmallDocumentResult> {
    const signal = o.signal;
    const r = await this.read(documentId, runId, signal, o.onOcrPage);
    if (r.kind !== 'extracted') {
      if (r.result.gone) return this.completedEarlier(documentId, runId);
      const chunkCount = r.result.chunkCount ?? 0;
      // Same bytes as the served version: nothing to embed, only the status to record.
      if (!(await this.complete(documentId, runId, chunkCount))) return { outcome: 'gone' };
      return { outcome: 'complete', pageCount: r.result.pageCount, chunkCount };
    }
    const { doc, pages, meta } = r;
    const { context, chunks } = await this.preparer.prepare({
      fileName: doc.fileName,
      title: meta.title ? meta.title.slice(0, 1000) : null,
      pages: pages.map((text, i) => ({ pageNumber: i + 1, text })),
    });
    if (chunks.length > o.maxChunks) {
      await this.store.savePages(documentId, pages, meta);
      return { outcome: 'large', pageCount: pages.length };
    }
    const generation = doc.servedGeneration === null ? 0 : doc.servedGeneration + 1;
    this.assertWritable(doc);
    await this.dropUnservedChunks(doc, signal);
    await this.store.savePages(documentId, pages, meta, { count: chunks.length, generation });
    const written = await this.writeChunks(doc, runId, context, chunks, generation, 0, o);
    if (!written) return { outcome: 'gone' };
    // `doc` is the row read before the write: the generation written is always a new one
    if (!(await this.swapAndComplete(doc, runId, chunks.length, true))) return { outcome: 'gone' };
    return { outcome: 'complete', pageCount: pages.length, chunkCount: chunks.length };
  }

  /**
   * A retried attempt of a step whose earlier attempt completed the document (its result was lost
   * with the worker): report it complete rather than skipped.
   */
  private async completedEarlier(documentId: string, runId: string): Promise<SmallDocumentResult> {
    const doc = await this.store.getDocument(documentId);
    if (doc?.lastRunId === runId && doc.status === 'COMPLETE' && doc.chunkCount !== null)
      return { outcome: 'complete', pageCount: doc.pageCount ?? 0, chunkCount: doc.chunkCount };
    return { outcome: 'gone' };
  }

  /**
   * Begin, download and extract, in memory: `extracted` with the pages to save, or the result of
   * a document that was removed (`gone`) or whose bytes did not change (`unchanged`).
   */
  private async read(
    documentId: string,
    runId: string,
    signal?: AbortSignal,
    onOcrPage?: (p: OcrProgress) => void,
  ): Promise<
    | { kind: 'done'; result: ExtractResult }
    | {
        kind: 'extracted';
        doc: DocumentRow;
        pages: string[];
        meta: {
          contentHash: string;
          summary: string | null;
          sizeBytes: number;
          title: string | null;
          filing: FilingMetadata;
        };
      }
  > {
    const doc = await this.store.beginDocument(documentId, runId);
    if (!doc) return { kind: 'done', result: { gone: true, pageCount: 0, unchanged: false } };
    const run = await this.runs.getRun(runId);
    if (!run) throw new RunGoneError('The run of this document no longer exists');
    const { connector, credentials } = this.credentials.resolve(run);
    const limit = this.indexing.maxFileBytes;
    assertWithinFileLimit(doc.sizeBytes, limit);
    // The connectors bound a download by their own time limits; a cancelled step stops waiting now.
    const { data } = await abortable(
      withinFileLimit(connector.download(credentials, doc.sourceId, limit), limit),
      signal,
    );
    const contentHash = createHash('sha256').update(data).digest('hex');
    if (
      !run.options.forceReindex &&
      doc.contentHash === contentHash &&
      // chunks of another embedder are not in this index version: embed again
      doc.embeddingSpace === embeddingSpaceKey(this.embedder) &&
      doc.indexedAt !== null &&
      doc.chunkCount !== null &&
      doc.servedGeneration === doc.chunkGeneration &&
      doc.pageCount !== null &&
      (await this.store.pageCountStored(documentId)) === doc.pageCount
    ) {
      return {
        kind: 'done',
        result: { gone: false, pageCount: doc.pageCount, unchanged: true, chunkCount: doc.chunkCount },
      };
    }
    const { pages, title } = await this.extractor.extractDocument(doc.fileType, data, signal, {
      ocr: run.options.ocr ?? true,
      onOcrPage,
    });
    signal?.throwIfAborted();
    const summary = this.summarizer.summarize(pages, run.summaryModel ?? LOCAL_SUMMARY_MODEL);
    return {
      kind: 'extracted',
      doc,
      pages,
      meta: {
        contentHash,
        summary,
        sizeBytes: data.length,
        title: title ?? null,
        filing: filingMetadata(pages),
      },
    };
  }

  /**
   * Chunks the stored pages (each chunk with its document's context and its section, see
   * prepareDocument), embeds them in batches and upserts them as the document's next
   * generation, beside the served one (ids `chunkId(documentId, chunkIndex, generation)`, so a
   * retried or resumed attempt overwrites instead of adding): search keeps answering from the
   * previous version until `complete` swaps them. A fresh attempt first deletes what an earlier
   * unfinished attempt may have left, never the served version. Returns null, leaving no
   * unfinished chunks behind, when the document stopped being this run's INDEXING document
   * meanwhile (deleted, or its run closed).
   */
  async indexChunks(
    documentId: string,
    runId: string,
    o: IndexChunksOptions = {},
  ): Promise<{ chunkCount: number } | null> {
    const doc = await this.store.getDocument(documentId);
    if (!doc || doc.lastRunId !== runId || doc.status !== 'INDEXING') return null;
    const { context, chunks } = await this.preparer.prepare({
      fileName: doc.fileName,
      title: doc.title,
      pages: await this.store.loadPages(documentId),
    });
    const generation = doc.servedGeneration === null ? 0 : doc.servedGeneration + 1;
    const next = Math.min(Math.max(o.resumeFrom ?? 0, 0), chunks.length);
    this.assertWritable(doc);
    if (next === 0) await this.dropUnservedChunks(doc, o.signal);
    if (doc.chunkCount !== chunks.length || doc.chunkGeneration !== generation)
      await this.store.setChunkCount(documentId, chunks.length, generation);
    if (!(await this.writeChunks(doc, runId, context, chunks, generation, next, o))) return null;
    return { chunkCount: chunks.length };
  }

  /**
   * Embeds and upserts chunks `from`.. of `generation` in batches, calling onProgress with the next
   * chunk after each embedding batch and write. False, with nothing unfinished left behind, when
   * the document stopped being this run's INDEXING document meanwhile (deleted, or its run closed).
   */
  private async writeChunks(
    doc: DocumentRow,
    runId: string,
    context: DocumentContext,
    chunks: DocumentChunk[],
    generation: number,
    from: number,
    o: IndexChunksOptions,
  ): Promise<boolean> {
    const signal = o.signal;
    let next = from;
    while (next < chunks.length) {
      signal?.throwIfAborted();
      this.assertWritable(doc);
      const batch = chunks.slice(next, next + UPSERT_BATCH);
      const vectors: number[][] = [];
      for (let i = 0; i < batch.length; i += EMBED_BATCH) {
        const texts = batch.slice(i, i + EMBED_BATCH).map((c) => c.embeddingText);
        // abortable: an embedder that ignores the signal still cannot keep a cancelled step waiting
        vectors.push(...(await abortable(this.embedder.embedDocuments(texts, { signal }), signal)));
        o.onProgress?.(next);
      }
      await this.search.upsert(chunkRecords(doc, context, batch, vectors, generation), { signal });
      next += batch.length;
      if (!(await this.store.isIndexing(doc.id, runId))) {
        const now = await this.store.getDocument(doc.id);
        if (now) {
          await this.dropUnservedChunks(now, signal);
          await this.store.clearChunkCount(doc.id);
        } else await this.search.deleteByDocument(doc.accountId, doc.id, { signal }); // removed meanwhile
        return false;
      }
      o.onProgress?.(next);
    }
    return true;
  }

  /**
   * The swap: the new generation is complete, so the previous one is deleted, then the document is
   * recorded COMPLETE with the new generation served. Retried safely (the delete is idempotent and
   * the update only applies to this run's INDEXING document).
   */
  async complete(documentId: string, runId: string, chunkCount: number): Promise<boolean> {
    const doc = await this.store.getDocument(documentId);
    if (!doc || doc.lastRunId !== runId || doc.status !== 'INDEXING') return false;
    // the row read after the write: a generation other than the served one was written
    return this.swapAndComplete(doc, runId, chunkCount, doc.servedGeneration !== doc.chunkGeneration);
  }

  /**
   * Deletes the served generation when `retireServed` (a newer one was written), then records
   * COMPLETE. False when the document is no longer this run's INDEXING document.
   */
  private async swapAndComplete(
    doc: DocumentRow,
    runId: string,
    chunkCount: number,
    retireServed: boolean,
  ): Promise<boolean> {
    if (retireServed && doc.servedGeneration !== null && doc.servedChunkCount !== null)
      await this.search.deleteChunks(doc.accountId, doc.id, doc.servedGeneration, doc.servedChunkCount);
    const done = await this.store.completeDocument(
      doc.id,
      runId,
      chunkCount,
      embeddingSpaceKey(this.embedder),
    );
    if (done) docqaMetrics.documentsIndexed.inc({ status: 'COMPLETE' });
    return done;
  }

  /**
   * ERROR (with a readable reason) or CANCELLED: the document keeps no pages and no unfinished
   * chunks; a previously indexed version stays served (the docset does not disappear because a
   * re-index failed or was cancelled).
   */
  async fail(
    documentId: string,
    runId: string,
    status: 'ERROR' | 'CANCELLED',
    reason: string | null,
    signal?: AbortSignal,
  ): Promise<void> {
    const doc = await this.store.getDocument(documentId);
    if (!doc || doc.lastRunId !== runId || doc.status === 'COMPLETE') return;
    await this.dropUnservedChunks(doc, signal);
    if (await this.store.failDocument(documentId, runId, status, reason ? reason.slice(0, 1000) : null))
      docqaMetrics.documentsIndexed.inc({ status });
  }

  /**
   * Fails the step at once (retryable) when the engine is known not to take a write now: embedding
   * a batch it cannot take would only be thrown away at its write lock, and waiting there would
   * keep this worker slot from steps that need no engine, such as another account's listing
   * (issue #13).
   */
  private assertWritable(doc: DocumentRow): void {
    const blocked = hasMaintenance(this.search) ? this.search.writesBlocked() : undefined;
    if (!blocked) return;
    this.logger.warn(
      `document ${doc.id}: not written, the search engine is not accepting writes (${blocked})`,
    );
    throw searchWritesBlocked();
  }

  /**
   * Deletes the chunks of a generation that was written (or partly written) but is not served.
   * `chunk_count`/`chunk_generation` describe the latest generation written; nothing to do when
   * it is the served one, or when nothing was written (null count: the costly delete is skipped).
   */
  private async dropUnservedChunks(doc: DocumentRow, signal?: AbortSignal): Promise<void> {
    if (doc.chunkCount === null) return;
    const accountId = doc.accountId;
    if (doc.servedGeneration === null) await this.search.deleteByDocument(accountId, doc.id, { signal });
    else if (doc.chunkGeneration !== doc.servedGeneration)
      await this.search.deleteChunks(accountId, doc.id, doc.chunkGeneration, doc.chunkCount, { signal });
  }
}
