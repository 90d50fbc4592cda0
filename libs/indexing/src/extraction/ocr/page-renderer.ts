import { Worker } from 'node:worker_threads';
import { LOWER_THREAD_PRIORITY_SOURCE } from '@docqa/common';

/**
 * Resolution pages are rendered at for OCR. Tesseract reads body text best at 200-300 DPI; on the
 * dev corpus (docs/benchmarks/ocr.md) 200 read 96.8% of the words and 300 96.3%, at 16% more CPU.
 */
export const OCR_RENDER_DPI = 200;

/**
 * Largest image rendered (pixels): a poster-sized page is scaled down to it, so one page cannot
 * take gigabytes of canvas memory. 24 MP is an A3 page at 300 DPI.
 */
export const OCR_MAX_PIXELS = 24_000_000;

/**
 * Code of the render thread. PDF.js (unpdf's build) draws one page at a time onto a prebuilt
 * @napi-rs/canvas, on a white background, and returns it as PNG. The document is parsed once per
 * session. Node 20 lacks ArrayBuffer.prototype.transferToFixedLength, which PDF.js's renderer
 * calls: a copying stand-in is installed in this thread only.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
${LOWER_THREAD_PRIORITY_SOURCE}
if (!ArrayBuffer.prototype.transferToFixedLength) {
  ArrayBuffer.prototype.transferToFixedLength = function (length) {
    const out = new ArrayBuffer(length === undefined ? this.byteLength : length);
    new Uint8Array(out).set(new Uint8Array(this, 0, Math.min(out.byteLength, this.byteLength)));
    return out;
  };
}
let pdf, Factory;
async function open(data) {
  const unpdf = require(workerData.unpdfPath);
  Factory = await unpdf.createIsomorphicCanvasFactory(async () => require(workerData.canvasPath));
  pdf = await unpdf.getDocumentProxy(new Uint8Array(data), { verbosity: 0, isEvalSupported: false, CanvasFactory: Factory });
}
async function render(pageNumber) {
  const page = await pdf.getPage(pageNumber);
  try {
    const base = page.getViewport({ scale: 1 });
    const fit = Math.sqrt(workerData.maxPixels / Math.max(1, base.width * base.height));
    const viewport = page.getViewport({ scale: Math.min(workerData.dpi / 72, fit) });
    const { canvas, context } = new Factory().create(Math.ceil(viewport.width), Math.ceil(viewport.height));
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    await page.render({ canvas, canvasContext: context, viewport }).promise;
    return canvas.toBuffer('image/png');
  } finally {
    page.cleanup();
  }
}
parentPort.on('message', async (msg) => {
  try {
    if (msg.type === 'open') {
      await open(msg.data);
      parentPort.postMessage({ id: msg.id, ok: true });
    } else {
      const image = await render(msg.pageNumber);
      parentPort.postMessage({ id: msg.id, ok: true, image });
    }
  } catch (err) {
    parentPort.postMessage({ id: msg.id, ok: false, message: String((err && err.message) || err) });
  }
});
`;

type Reply = { id: number; ok: true; image?: Uint8Array } | { id: number; ok: false; message: string };

export interface RendererOptions {
  /** Nice value of the render thread (BACKGROUND_THREADS_LOW_PRIORITY). */
  nice: number;
  maxHeapMb: number;
  /** Render resolution (default OCR_RENDER_DPI; the benchmark compares others). */
  dpi?: number;
}

/**
 * One PDF opened in a render thread of its own: pages rendered one after the other (PNG), then
 * closed (the thread ends). Any failure of the thread rejects what is pending.
 */
export class PageRenderSession {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private chain: Promise<unknown> = Promise.resolve();
  private failure: Error | null = null;

  private constructor(opts: RendererOptions) {
    this.worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: {
        unpdfPath: require.resolve('unpdf'),
        canvasPath: require.resolve('@napi-rs/canvas'),
        nice: opts.nice,
        dpi: opts.dpi ?? OCR_RENDER_DPI,
        maxPixels: OCR_MAX_PIXELS,
      },
      resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb },
    });
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      p?.resolve(reply);
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      for (const p of this.pending.values()) p.reject(this.failure);
      this.pending.clear();
    };
    this.worker.on('error', (err) => fail(new Error(`The page renderer failed (${err.name})`)));
    this.worker.on('exit', () => fail(new Error('The page renderer stopped')));
  }

  /** Parses `data` in a new render thread. */
  static async open(data: Buffer, opts: RendererOptions): Promise<PageRenderSession> {
    const session = new PageRenderSession(opts);
    const copy = new Uint8Array(data.byteLength);
    copy.set(data);
    try {
      await session.request({ type: 'open', data: copy }, [copy.buffer]);
    } catch (err) {
      await session.close();
      throw err;
    }
    return session;
  }

  /** Page `pageNumber` (1-based) as a PNG image. Renders run one at a time, in call order. */
  render(pageNumber: number): Promise<Buffer> {
    const next = this.chain.then(() => this.request({ type: 'render', pageNumber }));
    this.chain = next.catch(() => undefined);
    return next.then((r) => Buffer.from((r as { image: Uint8Array }).image));
  }

  async close(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate().catch(() => undefined);
    this.failure ??= new Error('The page renderer is closed');
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
  }

  private request(msg: object, transfer: ArrayBuffer[] = []): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...msg, id }, transfer);
    }).then((reply) => {
      if (!reply.ok) throw new Error(`The page could not be rendered (${reply.message.slice(0, 200)})`);
      return reply;
    });
  }
}
