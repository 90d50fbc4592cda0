import { Injectable, OnModuleDestroy } from '@nestjs/common';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ChunkOptions, DEFAULT_CHUNKING } from './chunker';
import { PreparedDocument } from './document-chunks';

/** What prepareDocument reads of a document. */
export interface DocumentToPrepare {
  fileName: string;
  title?: string | null;
  pages: ReadonlyArray<{ pageNumber: number; text: string }>;
}

/**
 * The thread's code. It loads the chunking modules beside this file: the built `.js` in the
 * product; from the `.ts` sources (Jest, `node -r test/support/ts-register.js`) it registers the
 * same TypeScript loader the tests use first.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.register) require(workerData.register);
const { prepareDocument } = require(workerData.module);
parentPort.on('message', ({ id, doc, options }) => {
  try {
    parentPort.postMessage({ id, ok: true, prepared: prepareDocument(doc, options) });
  } catch (err) {
    parentPort.postMessage({ id, ok: false, message: String((err && err.message) || err) });
  }
});
`;

type Reply =
  { id: number; ok: true; prepared: PreparedDocument } | { id: number; ok: false; message: string };

interface Job {
  resolve: (p: PreparedDocument) => void;
  reject: (err: Error) => void;
}

/**
 * Prepares documents (context, running lines, hyphenation, chunks, sections: prepareDocument) in
 * a thread of its own. It is pure CPU, up to a second for a long document, and on the main
 * thread it held the event loop that answers requests and heartbeats for that long (the soak's
 * profile: most of the loop's stalls were here). One thread: preparing is a small share of
 * indexing's CPU, and the jobs are short, so they queue briefly; it is started on first use and
 * does not keep the process alive. One per application (indexing and re-embedding share it); it
 * ends with the application, since a thread left running kept a test process from exiting.
 */
@Injectable()
export class DocumentPreparer implements OnModuleDestroy {
  private worker?: Worker;
  private nextId = 0;
  private readonly jobs = new Map<number, Job>();

  prepare(doc: DocumentToPrepare, options: ChunkOptions = DEFAULT_CHUNKING): Promise<PreparedDocument> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<PreparedDocument>((resolve, reject) => {
      this.jobs.set(id, { resolve, reject });
      worker.postMessage({
        id,
        doc: { fileName: doc.fileName, title: doc.title ?? null, pages: doc.pages },
        options,
      });
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.close();
  }

  /** Ends the thread; jobs still waiting fail. The next `prepare` starts a new one. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
    this.failAll(new Error('The document preparer was closed'));
  }

  private start(): Worker {
    const ext = path.extname(__filename);
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: {
        module: path.join(__dirname, `document-chunks${ext}`),
        register:
          ext === '.ts' ? path.resolve(__dirname, '../../../../test/support/ts-register.js') : undefined,
      },
    });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const job = this.jobs.get(reply.id);
      if (!job) return;
      this.jobs.delete(reply.id);
      if (reply.ok) job.resolve(reply.prepared);
      else job.reject(new Error(reply.message));
    });
    // A dead thread fails what it held; the next document starts a new one.
    const gone = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failAll(err);
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`The document preparation thread exited with ${code}`)));
    this.worker = worker;
    return worker;
  }

  private failAll(err: Error): void {
    for (const job of this.jobs.values()) job.reject(err);
    this.jobs.clear();
  }
}
