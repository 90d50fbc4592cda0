import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { abortable, APP_CONFIG, AppConfig, docqaMetrics, embeddingSpaceKey } from '@docqa/common';
import { Embedder, EMBEDDER } from '@docqa/llm';
import { ChunkRecord, SEARCH_INDEX, SearchIndex } from '@docqa/search';
import { DocumentChunk, contextFields, prepareDocument } from '../chunking/document-chunks';
import type { DocumentContext } from '../chunking/document-context';
import { DocumentExtractor } from '../extraction/extractor';
import { DocumentRow, IndexingStore } from '../persistence/indexing.store';
import { DocumentSummarizer, LOCAL_SUMMARY_MODEL } from '../summary/summarizer';
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
    accountId: String(doc.accountId),
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
  constructor(
    private readonly store: IndexingStore,
    private readonly credentials: RunCredentials,
    private readonly extractor: DocumentExtractor,
    private readonly summarizer: DocumentSummarizer,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  /**
   * Marks the document INDEXING (PENDING -> INDEXING for this run), downloads the file, extracts
   * its pages into Postgres and stores the summary. Stops between steps once `signal` aborts.
   */
  async extract(documentId: string, runId: string, signal?: AbortSignal): Promise<ExtractResult> {
    const doc = await this.store.beginDocument(documentId, runId);
    if (!doc) return { gone: true, pageCount: 0, unchanged: false };
    const run = await this.store.getRun(runId);
    if (!run) throw new RunGoneError('The run of this document no longer exists');
    const { connector, credentials } = this.credentials.resolve(run);
    // The connectors bound a download by their own time limits; a cancelled step stops waiting now.
    const { data } = await abortable(
      connector.download(credentials, doc.sourceId, this.cfg.indexingMaxFileBytes),
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
      return { gone: false, pageCount: doc.pageCount, unchanged: true, chunkCount: doc.chunkCount };
    }
    const { pages, title } = await this.extractor.extractDocument(doc.fileType, data, signal);
    signal?.throwIfAborted();
    const summary = this.summarizer.summarize(pages, run.summaryModel ?? LOCAL_SUMMARY_MODEL);
    await this.store.savePages(documentId, pages, { contentHash, summary, sizeBytes: data.length, title });
    return { gone: false, pageCount: pages.length, unchanged: false };
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
    const accountId = String(doc.accountId);
    const { context, chunks } = prepareDocument({
      fileName: doc.fileName,
      title: doc.title,
      pages: await this.store.loadPages(documentId),
    });
    const generation = doc.servedGeneration === null ? 0 : doc.servedGeneration + 1;
    let next = Math.min(Math.max(o.resumeFrom ?? 0, 0), chunks.length);
    const signal = o.signal;
    if (next === 0) await this.dropUnservedChunks(doc, signal);
    if (doc.chunkCount !== chunks.length || doc.chunkGeneration !== generation)
      await this.store.setChunkCount(documentId, chunks.length, generation);
    while (next < chunks.length) {
      o.signal?.throwIfAborted();
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
      if (!(await this.store.isIndexing(documentId, runId))) {
        const now = await this.store.getDocument(documentId);
        if (now) {
          await this.dropUnservedChunks(now, signal);
          await this.store.clearChunkCount(documentId);
        } else await this.search.deleteByDocument(accountId, documentId, { signal }); // removed meanwhile
        return null;
      }
      o.onProgress?.(next);
    }
    return { chunkCount: chunks.length };
  }

  /**
   * The swap: the new generation is complete, so the previous one is deleted, then the document is
   * recorded COMPLETE with the new generation served. Retried safely (the delete is idempotent and
   * the update only applies to this run's INDEXING document).
   */
  async complete(documentId: string, runId: string, chunkCount: number): Promise<void> {
    const doc = await this.store.getDocument(documentId);
    if (!doc || doc.lastRunId !== runId || doc.status !== 'INDEXING') return;
    if (
      doc.servedGeneration !== null &&
      doc.servedChunkCount !== null &&
      doc.servedGeneration !== doc.chunkGeneration
    )
      await this.search.deleteChunks(
        String(doc.accountId),
        documentId,
        doc.servedGeneration,
        doc.servedChunkCount,
      );
    if (await this.store.completeDocument(documentId, runId, chunkCount, embeddingSpaceKey(this.embedder)))
      docqaMetrics.documentsIndexed.inc({ status: 'COMPLETE' });
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
   * Deletes the chunks of a generation that was written (or partly written) but is not served.
   * `chunk_count`/`chunk_generation` describe the latest generation written; nothing to do when
   * it is the served one, or when nothing was written (null count: the costly delete is skipped).
   */
  private async dropUnservedChunks(doc: DocumentRow, signal?: AbortSignal): Promise<void> {
    if (doc.chunkCount === null) return;
    const accountId = String(doc.accountId);
    if (doc.servedGeneration === null) await this.search.deleteByDocument(accountId, doc.id, { signal });
    else if (doc.chunkGeneration !== doc.servedGeneration)
      await this.search.deleteChunks(accountId, doc.id, doc.chunkGeneration, doc.chunkCount, { signal });
  }
}
