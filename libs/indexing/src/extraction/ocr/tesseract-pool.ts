import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createWorker, OEM, type Worker as TesseractWorker } from 'tesseract.js';

/**
 * English trained data from the registry package @tesseract.js-data/eng (installed by `npm ci`):
 * the LSTM "best_int" model, the one tesseract.js would otherwise download from a CDN for
 * OEM.LSTM_ONLY. Read from disk; nothing is fetched at run time.
 */
export const OCR_LANG_PATH = path.join(
  path.dirname(require.resolve('@tesseract.js-data/eng')),
  '4.0.0_best_int',
);

/**
 * What every tesseract.js worker is created with: the language data from OCR_LANG_PATH, no
 * cache file written (tesseract.js otherwise writes eng.traineddata into the working directory),
 * the LSTM engine only. In Node the wasm core is `require`d from the tesseract.js-core package,
 * never fetched (corePath is a browser option).
 */
export function tesseractOptions(workerPath?: string) {
  return {
    langPath: OCR_LANG_PATH,
    gzip: true,
    cacheMethod: 'none',
    legacyCore: false,
    legacyLang: false,
    ...(workerPath ? { workerPath } : {}),
    logger: () => undefined,
    errorHandler: () => undefined,
  };
}

export class OcrTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`OCR did not finish within ${ms} ms`);
    this.name = 'OcrTimeoutError';
  }
}

/** The pool was closed (the process is stopping): not the document's fault, so worth a retry. */
export class OcrPoolClosedError extends Error {
  constructor() {
    super('The OCR pool is closed');
    this.name = 'OcrPoolClosedError';
  }
}

interface Job {
  image: Buffer;
  deadlineMs: number;
  resolve: (text: string) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Promise<TesseractWorker>;
  job?: Job;
  /** The running job's deadline. */
  timer?: NodeJS.Timeout;
}

export interface TesseractPoolOptions {
  /** tesseract.js workers (threads) at most, shared by every document. */
  workers: number;
  /** Nice value of the worker threads (BACKGROUND_THREADS_LOW_PRIORITY). */
  nice: number;
  /** Workers idle this long are ended (each holds ~100 MB: the model and the wasm heap). */
  idleMs: number;
}

/**
 * A bounded pool of tesseract.js workers (each a worker thread running Tesseract's wasm build):
 * started on first use, ended when idle. A page that passes its deadline, or whose caller
 * aborts, ends its worker (Tesseract cannot be interrupted) and a new one takes its place.
 */
export class TesseractPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private idleTimer?: NodeJS.Timeout;
  private workerDir?: string;
  private closed = false;

  constructor(private readonly opts: TesseractPoolOptions) {}

  /** The text Tesseract reads in `image` (PNG), within `deadlineMs`. */
  recognize(image: Buffer, deadlineMs: number, signal?: AbortSignal): Promise<string> {
    if (this.closed) return Promise.reject(new OcrPoolClosedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => {
        const queued = this.queue.indexOf(job);
        if (queued >= 0) this.queue.splice(queued, 1);
        const slot = this.slots.find((s) => s.job === job);
        if (slot) this.retire(slot);
        reject(signal?.reason);
        this.pump();
      };
      const job: Job = {
        image,
        deadlineMs,
        resolve: (t) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(t);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    for (const job of this.queue.splice(0)) job.reject(new OcrPoolClosedError());
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      clearTimeout(slot.timer);
      slot.job?.reject(new OcrPoolClosedError());
      slot.job = undefined;
    }
    await Promise.all(slots.map((s) => this.end(s)));
    if (this.workerDir) fs.rmSync(this.workerDir, { recursive: true, force: true });
  }

  /** Workers running now (for tests). */
  get size(): number {
    return this.slots.length;
  }

  private pump(): void {
    clearTimeout(this.idleTimer);
    if (this.closed) return;
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.opts.workers) slot = this.spawn();
      if (!slot) return;
      this.run(slot, this.queue.shift() as Job);
    }
    if (this.slots.every((s) => !s.job)) {
      this.idleTimer = setTimeout(() => {
        for (const s of this.slots.filter((x) => !x.job)) this.retire(s);
      }, this.opts.idleMs);
      this.idleTimer.unref();
    }
  }

  private run(slot: Slot, job: Job): void {
    slot.job = job;
    const timer = (slot.timer = setTimeout(() => {
      if (slot.job !== job) return;
      this.retire(slot);
      job.reject(new OcrTimeoutError(job.deadlineMs));
      this.pump();
    }, job.deadlineMs));
    slot.worker
      .then((w) => w.recognize(job.image))
      .then(
        (r) => {
          if (slot.job !== job) return;
          slot.job = undefined;
          job.resolve(r.data.text ?? '');
        },
        (err: unknown) => {
          if (slot.job !== job) return;
          // a worker that failed (to start, or on this image) is replaced
          this.retire(slot);
          job.reject(new Error(`OCR failed (${String((err as Error)?.message ?? err).slice(0, 200)})`));
        },
      )
      .finally(() => {
        clearTimeout(timer);
        if (!this.closed) this.pump();
      });
  }

  private spawn(): Slot {
    const slot: Slot = { worker: createWorker('eng', OEM.LSTM_ONLY, tesseractOptions(this.workerScript())) };
    slot.worker.catch(() => undefined);
    this.slots.push(slot);
    return slot;
  }

  private retire(slot: Slot): void {
    // a terminated worker never settles its job: its deadline timer must not outlive it
    clearTimeout(slot.timer);
    slot.job = undefined;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void this.end(slot);
  }

  private async end(slot: Slot): Promise<void> {
    const worker = await slot.worker.catch(() => null);
    await worker?.terminate().catch(() => undefined);
  }

  /**
   * tesseract.js starts its threads from a script path. At a nice value above 0, a two-line
   * script (in a private temporary folder) lowers the thread's priority, then runs tesseract.js's
   * own worker script; at 0 tesseract.js's script is used as is.
   */
  private workerScript(): string | undefined {
    if (this.opts.nice <= 0) return undefined;
    if (!this.workerDir) {
      this.workerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-ocr-'));
      const target = require.resolve('tesseract.js/src/worker-script/node/index.js');
      fs.writeFileSync(
        path.join(this.workerDir, 'worker.js'),
        `try { require('node:os').setPriority(${Math.trunc(this.opts.nice)}); } catch {}\n` +
          `require(${JSON.stringify(target)});\n`,
        { mode: 0o600 },
      );
    }
    return path.join(this.workerDir, 'worker.js');
  }
}
