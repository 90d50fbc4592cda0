import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { DocumentRejectedError } from './document-rejected.error';
import { OfficeRejection } from './office-rejection';

/**
 * Longest parse of one deck or workbook (5 minutes, as for a PDF): a cap-sized sheet parses in
 * seconds, so a parse past it is a file built to stall the reader.
 */
export const OFFICE_PARSE_TIMEOUT_MS = 5 * 60_000;
/** Heap of one Office thread (1 GiB, as for the PDF threads): a 100 MB workbook fits, a bomb does not. */
export const OFFICE_THREAD_HEAP_MB = 1024;

/**
 * The thread's code. It loads the Office readers beside this file: the built `.js` in the
 * product; from the `.ts` sources (Jest, `node -r test/support/ts-register.js`) it registers the
 * same TypeScript loader the tests use first.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.register) require(workerData.register);
const { officePages } = require(workerData.module);
officePages(workerData.fileType, Buffer.from(workerData.data.buffer, workerData.data.byteOffset, workerData.data.byteLength)).then(
  (pages) => parentPort.postMessage({ ok: true, pages }),
  (err) => parentPort.postMessage({ ok: false, name: String((err && err.name) || 'Error'), kind: err && err.kind, message: String((err && err.message) || err) }),
);
`;

type Reply = { ok: true; pages: string[] } | { ok: false; name: string; kind?: string; message: string };

/**
 * Pages of a deck or workbook, read in a thread of its own: SheetJS parses a workbook synchronously
 * (about 8 s for a 250,000-cell sheet on two busy cores), which on the main thread would hold the
 * event loop that heartbeats the activity and serves the API. One thread per file, ended when the
 * file is read, when `signal` aborts, or at OFFICE_PARSE_TIMEOUT_MS.
 */
export function officePagesInThread(
  fileType: 'pptx' | 'xlsx',
  data: Buffer,
  signal?: AbortSignal,
  timeoutMs = OFFICE_PARSE_TIMEOUT_MS,
): Promise<string[]> {
  signal?.throwIfAborted();
  const ext = path.extname(__filename);
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: {
      module: path.join(__dirname, `office-formats${ext}`),
      register:
        ext === '.ts' ? path.resolve(__dirname, '../../../../test/support/ts-register.js') : undefined,
      fileType,
      data,
    },
    resourceLimits: { maxOldGenerationSizeMb: OFFICE_THREAD_HEAP_MB },
  });
  worker.unref();
  return new Promise<string[]>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new DocumentRejectedError(
              'CORRUPT',
              `The ${fileType.toUpperCase()} file could not be read within ${timeoutMs / 1000} s`,
            ),
          ),
        ),
      timeoutMs,
    );
    const onAbort = () => finish(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (reply: Reply) =>
      finish(() => {
        if (reply.ok) resolve(reply.pages);
        else if (reply.name === 'OfficeRejection' && reply.kind)
          reject(new DocumentRejectedError(reply.kind as OfficeRejection['kind'], reply.message));
        else
          reject(
            new DocumentRejectedError(
              'CORRUPT',
              `The ${fileType.toUpperCase()} file could not be read (${reply.message.replace(/\s+/g, ' ').slice(0, 200)})`,
            ),
          );
      }),
    );
    // Out of heap (ERR_WORKER_OUT_OF_MEMORY) or a crash: the file is what could not be read.
    worker.on('error', (err) =>
      finish(() =>
        reject(
          new DocumentRejectedError(
            'CORRUPT',
            `The ${fileType.toUpperCase()} file could not be read (${(err as { code?: string }).code ?? err.name})`,
          ),
        ),
      ),
    );
    worker.on('exit', (code) =>
      finish(() => reject(new Error(`The Office reading thread exited with ${code} before it answered`))),
    );
  });
}
