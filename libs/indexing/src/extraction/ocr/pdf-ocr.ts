import { DocumentRejectedError } from '../document-rejected.error';
import { PageRenderSession } from './page-renderer';
import { OcrProgress, pagesWithoutText } from './page-selection';
import { OcrPoolClosedError, OcrTimeoutError, TesseractPool } from './tesseract-pool';

/**
 * tesseract.js workers (threads) per process. The deployment target has 2 cores
 * (docs/benchmarks/ocr.md measures pages/s with 2); more workers than cores only adds memory.
 */
export const OCR_WORKERS = 2;

/**
 * Deadline of one page's OCR (wall clock). A full page of text takes about 4 s of CPU
 * (docs/benchmarks/ocr.md) and took up to 95 s on this machine class under a load of 30 (other
 * work on the 2 cores); 5 minutes, the deadline of a whole PDF's text extraction, leaves room for
 * that, so only a pathological image (noise Tesseract segments forever) reaches it, and the
 * document ends ERROR naming the page instead of holding an indexing slot until the activity's
 * own limit.
 */
export const OCR_PAGE_DEADLINE_MS = 300_000;

/** Idle workers are ended after this long (each holds ~100 MB). */
export const OCR_IDLE_MS = 60_000;

export interface PdfOcrOptions {
  workers: number;
  pageDeadlineMs: number;
  nice: number;
  /** Heap of the render thread. */
  maxHeapMb: number;
  idleMs: number;
}

export interface OcrRunOptions {
  signal?: AbortSignal;
  /** Called as each page starts being read. */
  onPage?: (p: OcrProgress) => void;
}

/**
 * OCR of the pages of a PDF that have no text layer (pagesWithoutText): each is rendered by
 * PDF.js in a render thread of the document's own, then read by one of the shared tesseract.js
 * workers; OCR_WORKERS pages of a document are in flight at once (one rendering while another is
 * read). Page numbers are kept: the text read replaces the empty page in place.
 */
export class PdfOcr {
  private readonly opts: PdfOcrOptions;
  private pool?: TesseractPool;

  constructor(opts?: Partial<PdfOcrOptions>) {
    this.opts = {
      workers: OCR_WORKERS,
      pageDeadlineMs: OCR_PAGE_DEADLINE_MS,
      nice: 0,
      maxHeapMb: 1024,
      idleMs: OCR_IDLE_MS,
      ...(opts ?? {}),
    };
  }

  /**
   * `pages` with every page without text replaced by the text OCR reads in it. Rejects with
   * DocumentRejectedError when a page cannot be rendered or passes its deadline.
   */
  async fillPages(data: Buffer, pages: readonly string[], o: OcrRunOptions = {}): Promise<string[]> {
    const wanted = pagesWithoutText(pages);
    const out = [...pages];
    if (!wanted.length) return out;
    this.pool ??= new TesseractPool({
      workers: this.opts.workers,
      nice: this.opts.nice,
      idleMs: this.opts.idleMs,
    });
    const pool = this.pool;
    const session = await PageRenderSession.open(data, {
      nice: this.opts.nice,
      maxHeapMb: this.opts.maxHeapMb,
    });
    // the first page that fails stops the other lane too
    const stop = new AbortController();
    const signal = o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal;
    try {
      let next = 0;
      const lane = async () => {
        while (next < wanted.length) {
          signal.throwIfAborted();
          const index = next++;
          const pageNumber = wanted[index];
          o.onPage?.({ pageNumber, index: index + 1, total: wanted.length });
          out[pageNumber - 1] = await this.readPage(session, pool, pageNumber, signal);
        }
      };
      await Promise.all(
        Array.from({ length: Math.min(this.opts.workers, wanted.length) }, () =>
          lane().catch((err) => {
            stop.abort(err);
            throw err;
          }),
        ),
      );
      return out;
    } finally {
      await session.close();
    }
  }

  private async readPage(
    session: PageRenderSession,
    pool: TesseractPool,
    pageNumber: number,
    signal: AbortSignal,
  ): Promise<string> {
    const image = await session.render(pageNumber).catch((err: Error) => {
      signal.throwIfAborted();
      throw new DocumentRejectedError(
        'CORRUPT',
        `Page ${pageNumber} could not be rendered for OCR (${err.message})`,
      );
    });
    try {
      return await pool.recognize(image, this.opts.pageDeadlineMs, signal);
    } catch (err) {
      signal.throwIfAborted();
      if (err instanceof OcrPoolClosedError) throw err;
      if (err instanceof OcrTimeoutError)
        throw new DocumentRejectedError(
          'CORRUPT',
          `OCR of page ${pageNumber} did not finish within ${err.ms < 1000 ? `${err.ms} ms` : `${Math.round(err.ms / 1000)} s`}`,
        );
      throw new DocumentRejectedError(
        'CORRUPT',
        `Page ${pageNumber} could not be read by OCR (${(err as Error).message})`,
      );
    }
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = undefined;
  }
}
