import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { LOWER_THREAD_PRIORITY_SOURCE } from '@docqa/common';
import { DocumentRejectedError } from './document-rejected.error';
import { PdfOcr } from './ocr/pdf-ocr';
import type { OcrProgress } from './ocr/page-selection';

/**
 * Code of one extraction thread. It loads unpdf (PDF.js) natively: PDF.js is ESM-only, and a
 * thread keeps the parse (CPU-bound, seconds for a long PDF) off the event loop that heartbeats
 * the activity and serves the API. Pages come back as an array, 1-based physical order, with the
 * metadata title when the PDF has one.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
${LOWER_THREAD_PRIORITY_SOURCE}
let unpdf;
parentPort.on('message', async ({ id, data }) => {
  let pdf;
  try {
    unpdf = unpdf || require(workerData.unpdfPath);
    pdf = await unpdf.getDocumentProxy(new Uint8Array(data), { verbosity: 0, isEvalSupported: false });
    const { text } = await unpdf.extractText(pdf, { mergePages: false });
    const meta = await pdf.getMetadata().catch(() => null);
    const title = meta && meta.info && typeof meta.info.Title === 'string' ? meta.info.Title : null;
    parentPort.postMessage({ id, ok: true, pages: text, title });
  } catch (err) {
    parentPort.postMessage({ id, ok: false, name: String((err && err.name) || 'Error'), message: String((err && err.message) || err) });
  } finally {
    if (pdf) await pdf.destroy().catch(() => undefined);
  }
});
`;

/** Text of a PDF's pages (physical order) and its metadata title, if any. */
export interface PdfContent {
  pages: string[];
  title: string | null;
}

interface Job {
  id: number;
  data: Buffer;
  resolve: (content: PdfContent) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
}

type Reply =
  | { id: number; ok: true; pages: string[]; title: string | null }
  | { id: number; ok: false; name: string; message: string };

/** Per-document options of an extraction. */
export interface PdfExtractOptions {
  /** OCR the pages without a text layer (default true; the run's `indexOptions.ocr`). */
  ocr?: boolean;
  /** Called as OCR starts reading each page (for the activity's heartbeat). */
  onOcrPage?: (p: OcrProgress) => void;
}

export interface PdfExtractorOptions {
  threads: number;
  timeoutMs: number;
  maxHeapMb: number;
  /** Nice value of the extraction threads (0: normal priority; BACKGROUND_THREADS_LOW_PRIORITY). */
  nice: number;
}

/** Maps a PDF.js failure to a readable, permanent rejection. */
export function pdfFailure(name: string, message: string): DocumentRejectedError {
  if (name === 'PasswordException')
    return new DocumentRejectedError('ENCRYPTED', 'The PDF is encrypted (password-protected)');
  const detail = message.replace(/\s+/g, ' ').slice(0, 200);
  return new DocumentRejectedError('CORRUPT', `The PDF could not be read (${name}: ${detail})`);
}

/** A small pool of extraction threads, started on first use and stopped with the module. */
@Injectable()
export class PdfExtractor implements OnModuleDestroy {
  private readonly opts: PdfExtractorOptions;
  private readonly ocr: PdfOcr;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(opts?: Partial<PdfExtractorOptions>) {
    this.opts = { threads: 2, timeoutMs: 5 * 60_000, maxHeapMb: 1024, nice: 0, ...(opts ?? {}) };
    this.ocr = new PdfOcr({ nice: this.opts.nice, maxHeapMb: this.opts.maxHeapMb });
  }

  /**
   * Text of every page, in physical order. Rejects with DocumentRejectedError for a bad PDF. When
   * `signal` aborts (a cancelled activity) a queued job is dropped and a running parse is stopped
   * by terminating its thread (a new one replaces it), so the caller is released at once.
   */
  async extract(data: Buffer, signal?: AbortSignal, options?: PdfExtractOptions): Promise<string[]> {
    return (await this.extractContent(data, signal, options)).pages;
  }

  /**
   * Pages and metadata title, as `extract` (same errors, same abort behaviour). Pages without a
   * text layer are read by OCR unless `options.ocr` is false; a PDF left without any text is
   * rejected (EMPTY) with a reason that says whether OCR ran.
   */
  async extractContent(
    data: Buffer,
    signal?: AbortSignal,
    options: PdfExtractOptions = {},
  ): Promise<PdfContent> {
    const content = await this.parse(data, signal);
    const ocr = options.ocr ?? true;
    const pages = ocr
      ? await this.ocr.fillPages(data, content.pages, { signal, onPage: options.onOcrPage })
      : content.pages;
    if (!pages.some((p) => p.trim().length > 0))
      throw new DocumentRejectedError(
        'EMPTY',
        ocr
          ? 'The PDF has no text: its pages have no text layer and OCR read none in them'
          : 'The PDF has no extractable text (scanned pages need OCR, which this run turned off: indexOptions.ocr)',
      );
    return { pages, title: content.title };
  }

  /** The text layer of every page (PDF.js in an extraction thread) and the metadata title. */
  private parse(data: Buffer, signal?: AbortSignal): Promise<PdfContent> {
    if (this.closed) return Promise.reject(new Error('PdfExtractor is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<PdfContent>((resolve, reject) => {
      const onAbort = () => {
        const queued = this.queue.indexOf(job);
        if (queued >= 0) {
          this.queue.splice(queued, 1);
          reject(signal?.reason);
          return;
        }
        const slot = this.slots.find((s) => s.job === job);
        if (slot) void this.retire(slot, signal?.reason);
      };
      const settle =
        <T>(fn: (v: T) => void) =>
        (v: T) => {
          signal?.removeEventListener('abort', onAbort);
          fn(v);
        };
      const job: Job = { id: this.nextId++, data, resolve: settle(resolve), reject: settle(reject) };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('PdfExtractor is closed'));
    await Promise.all(this.slots.splice(0).map((s) => this.retire(s, new Error('PdfExtractor is closed'))));
    await this.ocr.close();
  }

  private pump(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.opts.threads) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift() as Job;
      slot.job = job;
      slot.timer = setTimeout(() => {
        void this.retire(
          slot as Slot,
          new DocumentRejectedError(
            'CORRUPT',
            `PDF extraction did not finish within ${this.opts.timeoutMs} ms`,
          ),
        );
      }, this.opts.timeoutMs);
      const copy = new Uint8Array(job.data.byteLength);
      copy.set(job.data);
      slot.worker.postMessage({ id: job.id, data: copy }, [copy.buffer]);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: { unpdfPath: require.resolve('unpdf'), nice: this.opts.nice },
      resourceLimits: { maxOldGenerationSizeMb: this.opts.maxHeapMb },
    });
    worker.unref();
    const slot: Slot = { worker };
    worker.on('message', (reply: Reply) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      this.finish(slot);
      if (reply.ok) job.resolve({ pages: reply.pages, title: reply.title?.trim() || null });
      else job.reject(pdfFailure(reply.name, reply.message));
      this.pump();
    });
    // A crash (out of memory on a hostile file, for example) fails the job and replaces the thread.
    worker.on(
      'error',
      (err) =>
        void this.retire(
          slot,
          new DocumentRejectedError('CORRUPT', `The PDF could not be processed (${err.name})`),
        ),
    );
    worker.on(
      'exit',
      () => void this.retire(slot, new DocumentRejectedError('CORRUPT', 'The PDF could not be processed')),
    );
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
  }

  private async retire(slot: Slot, reason: Error): Promise<void> {
    const job = slot.job;
    this.finish(slot);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    job?.reject(reason);
    slot.worker.removeAllListeners('exit');
    await slot.worker.terminate().catch(() => undefined);
    if (!this.closed) this.pump();
  }
}
