import { Inject, Injectable } from '@nestjs/common';
import { embeddingSpaceKey } from '@docqa/common';
import { Embedder, EMBEDDER } from '@docqa/embeddings';
import { SEARCH_INDEX, SearchIndex } from '@docqa/search';
import { DocumentPreparer } from '../chunking/document-preparer';
import { DocumentLifecycleStore, DocumentRow } from '../persistence/document-lifecycle.store';
import { EmbeddingSpaceStore } from '../persistence/embedding-space.store';
import { RunStore } from '../persistence/run.store';
import { chunkRecords, UPSERT_BATCH } from '../pipeline/document-pipeline';

export interface ReembedOptions {
  /** Only this account's documents (default: every account). */
  accountId?: number;
  /** Only this docset (with accountId). */
  docSetName?: string;
  /** Every COMPLETE document, not only those embedded in another space (e.g. after a chunker change). */
  all?: boolean;
  signal?: AbortSignal;
  onDocument?: (e: { doc: DocumentRow; chunks: number; done: number }) => void;
}

export interface ReembedReport {
  /** The space written: `<model>:<dimensions>` of the configured embedder. */
  space: string;
  indexName: string;
  documents: number;
  chunks: number;
  /** Docsets left alone because an indexing run is open on them (re-run the command later). */
  skippedDocsets: Array<{ accountId: number; docSetName: string }>;
  /** Documents that changed or disappeared while being re-embedded (their run re-indexes them). */
  changedMeanwhile: number;
  seconds: number;
}

const PAGE = 100;

/**
 * Re-embeds COMPLETE documents into the current index version from their stored pages (no
 * download): after a change of embedder, the new index version starts empty and documents of the
 * old space are missing from it until this runs (`npm run cli -- reembed`, docs/models.md). Chunks
 * and records are built exactly as indexing builds them. Idempotent and resumable: a document is
 * marked with the new space once its chunks are written, and the next run skips it.
 */
@Injectable()
export class ReembedService {
  constructor(
    private readonly documents: DocumentLifecycleStore,
    private readonly spaces: EmbeddingSpaceStore,
    private readonly runs: RunStore,
    private readonly preparer: DocumentPreparer,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
  ) {}

  async reembed(o: ReembedOptions = {}): Promise<ReembedReport> {
    const t0 = Date.now();
    const space = embeddingSpaceKey(this.embedder);
    const report: ReembedReport = {
      space,
      indexName: (await this.search.stats()).indexName,
      documents: 0,
      chunks: 0,
      skippedDocsets: [],
      changedMeanwhile: 0,
      seconds: 0,
    };
    const openRun = new Map<string, boolean>();
    let afterId: string | undefined;
    for (;;) {
      const docs = await this.spaces.documentsToReembed(space, {
        accountId: o.accountId,
        docSetName: o.docSetName,
        all: o.all,
        afterId,
        limit: PAGE,
      });
      if (docs.length === 0) break;
      afterId = docs[docs.length - 1].id;
      for (const doc of docs) {
        o.signal?.throwIfAborted();
        const key = `${doc.accountId}\u0000${doc.docSetName}`;
        if (!openRun.has(key)) {
          const busy = (await this.runs.openRun(doc.accountId, doc.docSetName)) !== null;
          openRun.set(key, busy);
          if (busy) report.skippedDocsets.push({ accountId: doc.accountId, docSetName: doc.docSetName });
        }
        if (openRun.get(key)) continue;
        const n = await this.reembedDocument(doc, o.signal);
        if (n === null) report.changedMeanwhile++;
        else {
          report.documents++;
          report.chunks += n;
        }
        o.onDocument?.({ doc, chunks: n ?? 0, done: report.documents });
      }
    }
    report.seconds = +((Date.now() - t0) / 1000).toFixed(1);
    return report;
  }

  /** Writes one document's chunks into the current index; null when it changed meanwhile. */
  private async reembedDocument(doc: DocumentRow, signal?: AbortSignal): Promise<number | null> {
    const accountId = doc.accountId;
    const { context, chunks } = await this.preparer.prepare({
      fileName: doc.fileName,
      title: doc.title,
      pages: await this.documents.loadPages(doc.id),
    });
    // A shorter document must not keep chunks of an earlier write into this index version.
    await this.search.deleteByDocument(accountId, doc.id);
    for (let i = 0; i < chunks.length; i += UPSERT_BATCH) {
      const batch = chunks.slice(i, i + UPSERT_BATCH);
      const vectors = await this.embedder.embedDocuments(
        batch.map((c) => c.embeddingText),
        { signal },
      );
      // As the served generation: the ids the document row says search holds (a COMPLETE document).
      await this.search.upsert(
        chunkRecords(doc, context, batch, vectors, doc.servedGeneration ?? doc.chunkGeneration),
      );
    }
    if (
      await this.spaces.markReembedded(
        doc.id,
        doc.contentHash,
        chunks.length,
        embeddingSpaceKey(this.embedder),
      )
    )
      return chunks.length;
    // Deleted or taken over by a run meanwhile: a run rewrites its chunks itself; a deleted
    // document must not leave any.
    if (!(await this.documents.getDocument(doc.id))) await this.search.deleteByDocument(accountId, doc.id);
    return null;
  }
}
