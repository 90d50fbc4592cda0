import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { DomainError, ErrorCode } from '@docqa/common';
import type { Embedder, EmbedOptions } from '../embedder.port';
import { LocalModelManifest, readLocalModel } from './local-model';

/**
 * Code of the inference thread: the tokenizer (@huggingface/tokenizers) and the onnxruntime-node
 * session live here, because onnxruntime-node runs a session synchronously on the calling thread
 * (a batch of 8 chunks takes ~0.2 s on 2 cores), which would stall the event loop that serves the
 * API and heartbeats indexing activities. One message is one batch; vectors come back as one
 * Float32Array (transferred, not copied).
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const ort = require(workerData.ortPath);
const { Tokenizer } = require(workerData.tokenizersPath);
const { dir, maxTokens, threads } = workerData;
// Longer texts are cut before tokenizing (256 tokens never need more); whitespace runs are one
// separator to BERT's pre-tokenizer, so collapsing them first changes no token.
const MAX_CHARS = 32768;
let tok, sep, session;
const ready = (async () => {
  const read = (f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
  tok = new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
  sep = tok.encode('').ids.at(-1);
  session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // idle inference threads sleep instead of spinning: the machine also serves the API
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
})();
function encode(text) {
  const t = text.length > MAX_CHARS ? text.replace(/\\s+/g, ' ').slice(0, MAX_CHARS) : text;
  const ids = tok.encode(t).ids;
  return ids.length > maxTokens ? [...ids.slice(0, maxTokens - 1), sep] : ids;
}
parentPort.on('message', async ({ id, texts, close }) => {
  if (close) {
    // release the session, then end the thread on its own: terminating a thread that holds an
    // onnxruntime session aborts the whole process
    await ready.catch(() => undefined);
    await session?.release().catch(() => undefined);
    process.exit(0);
  }
  try {
    await ready;
    const enc = texts.map(encode);
    const B = enc.length;
    const L = Math.max(...enc.map((e) => e.length));
    const ids = new BigInt64Array(B * L);
    const mask = new BigInt64Array(B * L);
    enc.forEach((e, i) => e.forEach((v, j) => { ids[i * L + j] = BigInt(v); mask[i * L + j] = 1n; }));
    const t = (a) => new ort.Tensor('int64', a, [B, L]);
    const out = await session.run(
      { input_ids: t(ids), attention_mask: t(mask), token_type_ids: t(new BigInt64Array(B * L)) },
      ['sentence_embedding'],
    );
    const vectors = new Float32Array(out.sentence_embedding.data);
    parentPort.postMessage({ id, ok: true, vectors, tokens: enc.reduce((s, e) => s + e.length, 0) }, [vectors.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, ok: false, message: String((err && err.message) || err).slice(0, 300) });
  }
});
ready.then(
  () => parentPort.postMessage({ ready: true }),
  (err) => parentPort.postMessage({ ready: false, message: String((err && err.message) || err).slice(0, 300) }),
);
`;

export interface OnnxEmbedderOptions {
  /** Model directory with manifest.json, model.onnx and tokenizer files (LOCAL_EMBEDDER_MODEL_DIR). */
  dir: string;
  /** onnxruntime intra-op threads (LOCAL_EMBEDDER_THREADS, default 2). */
  threads?: number;
  /** Texts per inference (LOCAL_EMBEDDER_BATCH_SIZE, default 8). */
  batchSize?: number;
}

interface Job {
  id: number;
  texts: string[];
  query: boolean;
  resolve: (v: Float32Array) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** How long close() waits for a running batch, then for the thread to exit, before terminating it. */
const CLOSE_WAIT_MS = 60_000;

type Reply =
  | { ready: true }
  | { ready: false; message: string }
  | { id: number; ok: true; vectors: Float32Array; tokens: number }
  | { id: number; ok: false; message: string };

/**
 * Local semantic embedder: a sentence-transformers model converted to ONNX by the project's own
 * converter (scripts/models/embedder), run with onnxruntime-node in one inference thread. Texts go
 * in batches of `batchSize`; queries jump ahead of queued document batches, so a question waits
 * for one batch at most while indexing runs. Vectors are mean-pooled and L2-normalised in the
 * graph. Aborting a call rejects it at once; a batch already running finishes and is discarded.
 */
export class OnnxEmbedder implements Embedder {
  readonly modelName: string;
  readonly dimensions: number;
  readonly recommendedVectorWeight = 1;
  readonly batchSize: number;
  readonly manifest: LocalModelManifest;
  private readonly log = new Logger('OnnxEmbedder');
  private worker?: Worker;
  private starting?: Promise<void>;
  private readonly queue: Job[] = [];
  private inFlight?: Job;
  private nextId = 1;
  private closed = false;
  /** Called when the running batch replies after close() began. */
  private onIdle?: () => void;

  private constructor(private readonly o: Required<OnnxEmbedderOptions>) {
    this.manifest = readLocalModel(o.dir);
    this.modelName = this.manifest.name;
    this.dimensions = this.manifest.dimensions;
    this.batchSize = o.batchSize;
  }

  /** Checks the installed files, starts the inference thread and waits until the model is loaded. */
  static async load(o: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
    const threads = o.threads ?? 2;
    const batchSize = o.batchSize ?? 8;
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError('threads must be a positive integer');
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 256)
      throw new RangeError('batchSize must be an integer 1-256');
    const e = new OnnxEmbedder({ dir: o.dir, threads, batchSize });
    await e.start();
    return e;
  }

  async embedDocuments(texts: string[], o: EmbedOptions = {}): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      o.signal?.throwIfAborted();
      out.push(...(await this.run(texts.slice(i, i + this.batchSize), false, o.signal)));
    }
    return out;
  }

  async embedQuery(text: string, o: EmbedOptions = {}): Promise<number[]> {
    o.signal?.throwIfAborted();
    const [v] = await this.run([text], true, o.signal);
    return v;
  }

  /**
   * Rejects queued work, lets a running batch finish (terminating a thread inside an onnxruntime
   * run aborts the process), then has the thread release the session and exit.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const err = new Error('The embedder is closed');
    for (const job of this.queue.splice(0)) this.settle(job, err);
    const w = this.worker;
    if (!w) return;
    const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
    const running = this.inFlight;
    if (running) {
      this.settle(running, err);
      await new Promise<void>((resolve) => {
        this.onIdle = resolve;
        setTimeout(resolve, CLOSE_WAIT_MS).unref();
      });
    }
    this.worker = undefined;
    w.postMessage({ close: true });
    const timer = setTimeout(() => void w.terminate(), CLOSE_WAIT_MS);
    await exited;
    clearTimeout(timer);
    w.removeAllListeners();
  }

  private start(): Promise<void> {
    this.starting ??= new Promise<void>((resolve, reject) => {
      const w = new Worker(THREAD_SOURCE, {
        eval: true,
        workerData: {
          ortPath: require.resolve('onnxruntime-node'),
          tokenizersPath: require.resolve('@huggingface/tokenizers'),
          dir: this.o.dir,
          maxTokens: this.manifest.maxTokens,
          threads: this.o.threads,
        },
      });
      w.unref();
      this.worker = w;
      let loaded = false;
      w.on('message', (r: Reply) => {
        if ('ready' in r) {
          if (r.ready) {
            loaded = true;
            resolve();
            this.pump();
          } else {
            this.failThread(w, `the embedding model could not be loaded (${r.message})`);
            reject(new Error(`The embedding model in ${this.o.dir} could not be loaded: ${r.message}`));
          }
          return;
        }
        this.onReply(r);
      });
      w.on('error', (err) => {
        this.failThread(w, `the inference thread failed (${err.message})`);
        if (!loaded) reject(err);
      });
      w.on('exit', () => {
        this.failThread(w, 'the inference thread stopped');
        if (!loaded) reject(new Error('the inference thread stopped while loading the model'));
      });
    });
    return this.starting;
  }

  /** The thread died: fail its work and start a new one for the next call. */
  private failThread(w: Worker, reason: string): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    this.starting = undefined;
    void w.terminate().catch(() => undefined);
    if (this.closed) return;
    this.log.error(`Embedding model: ${reason}`);
    const err = new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'The embedding model failed');
    if (this.inFlight) this.settle(this.inFlight, err);
    this.inFlight = undefined;
    for (const job of this.queue.splice(0)) this.settle(job, err);
  }

  private run(texts: string[], query: boolean, signal?: AbortSignal): Promise<number[][]> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new Error('The embedder is closed'));
    return new Promise<Float32Array>((resolve, reject) => {
      const job: Job = { id: this.nextId++, texts, query, resolve, reject, signal };
      if (signal) {
        job.onAbort = () => {
          const i = this.queue.indexOf(job);
          if (i >= 0) this.queue.splice(i, 1);
          this.settle(job, signal.reason ?? new DOMException('Aborted', 'AbortError'));
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      // queries go before queued document batches (after earlier queries)
      if (query) {
        const firstDoc = this.queue.findIndex((j) => !j.query);
        this.queue.splice(firstDoc < 0 ? this.queue.length : firstDoc, 0, job);
      } else this.queue.push(job);
      if (!this.worker) {
        this.start().catch(() => undefined); // failures reach the queued jobs through failThread
      } else this.pump();
    }).then((flat) => {
      const D = this.dimensions;
      return Array.from({ length: texts.length }, (_, b) => Array.from(flat.subarray(b * D, (b + 1) * D)));
    });
  }

  private pump(): void {
    if (this.inFlight || !this.worker || !this.queue.length) return;
    const job = this.queue.shift() as Job;
    this.inFlight = job;
    this.worker.postMessage({ id: job.id, texts: job.texts });
  }

  private onReply(r: Exclude<Reply, { ready: boolean }>): void {
    const job = this.inFlight;
    if (!job || job.id !== r.id) return;
    this.inFlight = undefined;
    if (this.closed) {
      this.onIdle?.();
      return;
    }
    if (r.ok) {
      if (r.vectors.length === job.texts.length * this.dimensions) this.settle(job, undefined, r.vectors);
      else
        this.settle(
          job,
          new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'The embedding model returned malformed vectors'),
        );
    } else {
      this.log.error(`Embedding failed: ${r.message}`);
      this.settle(job, new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'The embedding model failed'));
    }
    this.pump();
  }

  /** Resolves or rejects a job once (an aborted job may still get its reply later: ignored). */
  private settle(job: Job, err?: unknown, vectors?: Float32Array): void {
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    const { resolve, reject } = job;
    job.resolve = () => undefined;
    job.reject = () => undefined;
    if (err !== undefined) reject(err);
    else resolve(vectors as Float32Array);
  }
}
