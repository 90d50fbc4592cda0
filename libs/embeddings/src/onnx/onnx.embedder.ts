import { Logger } from '@nestjs/common';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { DomainError, ErrorCode } from '@docqa/common';
import type { Embedder, EmbedOptions } from '../embedder.port';
import { LocalModelManifest, LocalModelMissingError, readLocalModel } from './local-model';
import { THREAD_SOURCE } from './inference-thread';
import { EmbedderPrecision, EmbedderPrecisionSetting, resolvePrecision } from './precision';

export interface OnnxEmbedderOptions {
  /** Model directory with manifest.json, model.onnx and tokenizer files (LOCAL_EMBEDDER_MODEL_DIR). */
  dir: string;
  /**
   * Batches embedded at once (LOCAL_EMBEDDER_SESSIONS; default 1 here, 2 in the product's
   * configuration): each in its own inference thread with its own onnxruntime session.
   */
  sessions?: number;
  /** onnxruntime intra-op threads of each session (LOCAL_EMBEDDER_THREADS; default 2 here, 1 in the configuration). */
  threads?: number;
  /**
   * Nice value of the inference thread and onnxruntime's threads (default 0: normal priority).
   * Above 0 they yield the CPU to the event loop (BACKGROUND_THREADS_LOW_PRIORITY).
   */
  nice?: number;
  /** Texts per inference (LOCAL_EMBEDDER_BATCH_SIZE, default 2). */
  batchSize?: number;
  /**
   * `fp32` (model.onnx, the default), `int8` (model.int8.onnx), or `auto`: int8 where the CPU has
   * integer dot-product instructions and the int8 graph is installed (LOCAL_EMBEDDER_PRECISION).
   */
  precision?: EmbedderPrecisionSetting;
  /**
   * Batch document texts of similar length together (default true): a batch is padded to its
   * longest text, so mixing a 20-token text with 256-token ones wastes the difference.
   */
  groupByLength?: boolean;
}

/** One embedDocuments/embedQuery call: its vectors fill in as its texts' batches come back. */
interface Job {
  query: boolean;
  vectors: Float32Array;
  remaining: number;
  settled: boolean;
  resolve: (v: Float32Array) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** One text waiting for a batch; batches mix texts of several calls (concurrent documents). */
interface Item {
  job: Job;
  index: number;
  text: string;
}

/** Cumulative work of the inference threads (benchmarks: where the time goes). */
export interface EmbedderStats {
  batches: number;
  texts: number;
  /** Real tokens, and tokens including padding to each batch's longest text. */
  tokens: number;
  paddedTokens: number;
  tokenizeMs: number;
  inferMs: number;
  /** Most batches that ran at the same time (at most `sessions`). */
  peakBatchesAtOnce: number;
}

/**
 * Suffix of the int8 graph's embedding space. Name a new one (e.g. `-int8v2`) if bert2onnx.py's
 * int8 recipe changes, so vectors of the old recipe are re-embedded rather than mixed.
 */
export const INT8_SPACE_SUFFIX = '-int8';

/** One inference thread (its own onnxruntime session) and the batch it is running. */
interface Slot {
  worker?: Worker;
  starting?: Promise<void>;
  inFlight?: { id: number; items: Item[] };
}

/** How long close() waits for a running batch, then for the thread to exit, before terminating it. */
const CLOSE_WAIT_MS = 60_000;
/** Queued document texts a batch is chosen from (the oldest one always goes: nothing starves). */
const LENGTH_LOOKAHEAD = 64;
/** Characters past which every text fills the model's 256 tokens (the length key saturates). */
const LENGTH_KEY_CAP = 2000;

type Reply =
  | { ready: true }
  | { ready: false; message: string }
  | {
      id: number;
      ok: true;
      vectors: Float32Array;
      stats: Omit<EmbedderStats, 'batches' | 'texts' | 'peakBatchesAtOnce'>;
    }
  | { id: number; ok: false; message: string };

/**
 * Local semantic embedder: a sentence-transformers model as ONNX (all-MiniLM-L6-v2 converted by the
 * project's own converter, scripts/models/embedder; bge-small-en-v1.5 as published, scripts/models/
 * bge-small.js), run with onnxruntime-node in `sessions` inference threads, each with its own
 * session and one batch at a time (on 2 cores, two sessions of one thread keep the cores busy while
 * the other thread tokenises and trades messages with this one: 1.2x one session of two;
 * docs/benchmarks/embedder.md), in fp32 or with int8 weights (`precision`). Texts of all callers
 * share one queue and go in batches of `batchSize`, so concurrent small documents fill a batch
 * together; a batch takes the oldest queued text and those closest to its length (less padding).
 * Queries jump ahead of queued document texts, so while indexing runs a question waits for the
 * first of the running batches to end, and each query is a batch of its own; a query gets the
 * model's `queryPrefix`. Vectors are L2-normalised, mean-pooled in MiniLM's graph or CLS-pooled in
 * the inference thread (the manifest's `pooling`). Aborting a call rejects it at once; a batch
 * already running finishes and its vectors for that call are discarded.
 */
export class OnnxEmbedder implements Embedder {
  readonly modelName: string;
  readonly dimensions: number;
  readonly recommendedVectorWeight = 1;
  readonly batchSize: number;
  readonly precision: EmbedderPrecision;
  readonly manifest: LocalModelManifest;
  /** Put before each query (the manifest's `queryPrefix`; empty for MiniLM). */
  readonly queryPrefix: string;
  private readonly log = new Logger('OnnxEmbedder');
  private readonly slots: Slot[];
  private readonly queue: Item[] = [];
  private nextId = 1;
  private closed = false;
  /** Called when a running batch replies after close() began. */
  private onIdle?: () => void;
  private readonly totals: EmbedderStats = {
    batches: 0,
    texts: 0,
    tokens: 0,
    paddedTokens: 0,
    tokenizeMs: 0,
    inferMs: 0,
    peakBatchesAtOnce: 0,
  };

  private constructor(private readonly o: Required<OnnxEmbedderOptions> & { precision: EmbedderPrecision }) {
    this.manifest = readLocalModel(o.dir);
    // int8 vectors are close to fp32's (cosine 0.98-1.0) but not the same: their own embedding
    // space (documents.embedding_space, index version), so the two are never mixed in one index
    this.modelName =
      o.precision === 'int8' ? `${this.manifest.name}${INT8_SPACE_SUFFIX}` : this.manifest.name;
    this.dimensions = this.manifest.dimensions;
    this.queryPrefix = this.manifest.queryPrefix ?? '';
    this.batchSize = o.batchSize;
    this.precision = o.precision;
    this.slots = Array.from({ length: o.sessions }, () => ({}));
    if (o.precision === 'int8' && !this.manifest.files['model.int8.onnx'])
      throw new LocalModelMissingError(
        `The int8 graph of the embedding model is not installed in ${o.dir} (installed by an older version)`,
      );
  }

  /** Checks the installed files, starts the inference threads and waits until each has loaded the model. */
  static async load(o: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
    const sessions = o.sessions ?? 1;
    const threads = o.threads ?? 2;
    const batchSize = o.batchSize ?? 2;
    if (!Number.isInteger(sessions) || sessions < 1 || sessions > 64)
      throw new RangeError('sessions must be an integer 1-64');
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError('threads must be a positive integer');
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 256)
      throw new RangeError('batchSize must be an integer 1-256');
    const manifest = readLocalModel(o.dir);
    const e = new OnnxEmbedder({
      dir: o.dir,
      sessions,
      threads,
      batchSize,
      precision: resolvePrecision(o.precision ?? 'fp32', Boolean(manifest.files['model.int8.onnx'])),
      groupByLength: o.groupByLength ?? true,
      nice: o.nice ?? 0,
    });
    try {
      await Promise.all(e.slots.map((slot) => e.start(slot)));
    } catch (err) {
      await e.close();
      throw err;
    }
    return e;
  }

  /** The graph file this embedder runs. */
  get modelFile(): string {
    return this.precision === 'int8' ? 'model.int8.onnx' : 'model.onnx';
  }

  async embedDocuments(texts: string[], o: EmbedOptions = {}): Promise<number[][]> {
    o.signal?.throwIfAborted();
    return this.run(texts, false, o.signal);
  }

  /** Queries get the model's instruction (bge); passages never do. */
  async embedQuery(text: string, o: EmbedOptions = {}): Promise<number[]> {
    o.signal?.throwIfAborted();
    const [v] = await this.run([`${this.queryPrefix}${text}`], true, o.signal);
    return v;
  }

  /** What the inference threads did so far. */
  stats(): EmbedderStats {
    return { ...this.totals };
  }

  /**
   * Rejects queued work, lets running batches finish (terminating a thread inside an onnxruntime
   * run aborts the process), then has each thread release its session and exit.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.failAll(new Error('The embedder is closed'));
    const running = () => this.slots.some((s) => s.worker && s.inFlight);
    if (running()) {
      await new Promise<void>((resolve) => {
        this.onIdle = () => {
          if (!running()) resolve();
        };
        setTimeout(resolve, CLOSE_WAIT_MS).unref();
      });
    }
    await Promise.all(
      this.slots.map(async (slot) => {
        const w = slot.worker;
        if (!w) return;
        slot.worker = undefined;
        const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
        w.postMessage({ close: true });
        const timer = setTimeout(() => void w.terminate(), CLOSE_WAIT_MS);
        await exited;
        clearTimeout(timer);
        w.removeAllListeners();
      }),
    );
  }

  private start(slot: Slot): Promise<void> {
    slot.starting ??= new Promise<void>((resolve, reject) => {
      const w = new Worker(THREAD_SOURCE, {
        eval: true,
        workerData: {
          ortPath: require.resolve('onnxruntime-node'),
          tokenizersPath: require.resolve('@huggingface/tokenizers'),
          dir: this.o.dir,
          modelFile: this.modelFile,
          maxTokens: this.manifest.maxTokens,
          pooling: this.manifest.pooling,
          threads: this.o.threads,
          nice: this.o.nice,
        },
      });
      w.unref();
      slot.worker = w;
      let loaded = false;
      w.on('message', (r: Reply) => {
        if ('ready' in r) {
          if (r.ready) {
            loaded = true;
            resolve();
            this.pump();
          } else {
            this.failThread(slot, w, `the embedding model could not be loaded (${r.message})`);
            reject(
              new Error(
                `The embedding model ${path.join(this.o.dir, this.modelFile)} could not be loaded: ${r.message}`,
              ),
            );
          }
          return;
        }
        this.onReply(slot, r);
      });
      w.on('error', (err) => {
        this.failThread(slot, w, `the inference thread failed (${err.message})`);
        if (!loaded) reject(err);
      });
      w.on('exit', () => {
        this.failThread(slot, w, 'the inference thread stopped');
        if (!loaded) reject(new Error('the inference thread stopped while loading the model'));
      });
    });
    return slot.starting;
  }

  /** A thread died: fail the pending work and start a new thread for the next call. */
  private failThread(slot: Slot, w: Worker, reason: string): void {
    if (slot.worker !== w) return;
    slot.worker = undefined;
    slot.starting = undefined;
    void w.terminate().catch(() => undefined);
    if (this.closed) {
      this.onIdle?.();
      return;
    }
    this.log.error(`Embedding model: ${reason}`);
    this.failAll(new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'The embedding model failed'));
    slot.inFlight = undefined;
  }

  /** Rejects every queued and running call. */
  private failAll(err: unknown): void {
    const running = this.slots.flatMap((s) => s.inFlight?.items ?? []);
    for (const item of [...running, ...this.queue.splice(0)]) this.settle(item.job, err);
  }

  private run(texts: string[], query: boolean, signal?: AbortSignal): Promise<number[][]> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new Error('The embedder is closed'));
    return new Promise<Float32Array>((resolve, reject) => {
      const job: Job = {
        query,
        vectors: new Float32Array(texts.length * this.dimensions),
        remaining: texts.length,
        settled: false,
        resolve,
        reject,
        signal,
      };
      if (signal) {
        job.onAbort = () => {
          this.dropQueued(job);
          this.settle(job, signal.reason ?? new DOMException('Aborted', 'AbortError'));
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      const items = texts.map((text, index) => ({ job, index, text }));
      // queries go before queued document texts (after earlier queries)
      if (query) {
        const firstDoc = this.queue.findIndex((i) => !i.job.query);
        this.queue.splice(firstDoc < 0 ? this.queue.length : firstDoc, 0, ...items);
      } else this.queue.push(...items);
      // a thread that died is started again; failures reach the queued jobs through failThread
      for (const slot of this.slots) if (!slot.worker) this.start(slot).catch(() => undefined);
      this.pump();
    }).then((flat) => {
      const D = this.dimensions;
      return Array.from({ length: texts.length }, (_, b) => Array.from(flat.subarray(b * D, (b + 1) * D)));
    });
  }

  private dropQueued(job: Job): void {
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i].job === job) this.queue.splice(i, 1);
  }

  /**
   * The next batch: a queued query alone; else the oldest document text and those nearest its
   * length. A query never shares a batch: an int8 graph quantises activations with one scale per
   * batch, so a query's vector (and the answer) would depend on which other question came in at
   * the same moment.
   */
  private takeBatch(): Item[] {
    if (this.queue[0].job.query) return this.queue.splice(0, 1);
    const n = Math.min(this.batchSize, this.queue.length);
    if (!this.o.groupByLength) return this.queue.splice(0, n);
    const key = (i: Item) => Math.min(i.text.length, LENGTH_KEY_CAP);
    const target = key(this.queue[0]);
    const window = this.queue.slice(1, LENGTH_LOOKAHEAD).map((item, i) => ({ item, at: i + 1 }));
    window.sort((a, b) => Math.abs(key(a.item) - target) - Math.abs(key(b.item) - target) || a.at - b.at);
    const picked = new Set([0, ...window.slice(0, n - 1).map((w) => w.at)]);
    const batch = [...picked].sort((a, b) => a - b).map((at) => this.queue[at]);
    for (const at of [...picked].sort((a, b) => b - a)) this.queue.splice(at, 1);
    return batch;
  }

  /** Gives each loaded, idle thread the next batch. */
  private pump(): void {
    for (const slot of this.slots) {
      if (!this.queue.length) return;
      if (slot.inFlight || !slot.worker) continue;
      const items = this.takeBatch();
      slot.inFlight = { id: this.nextId++, items };
      slot.worker.postMessage({ id: slot.inFlight.id, texts: items.map((i) => i.text) });
      const running = this.slots.filter((s) => s.inFlight).length;
      this.totals.peakBatchesAtOnce = Math.max(this.totals.peakBatchesAtOnce, running);
    }
  }

  private onReply(slot: Slot, r: Exclude<Reply, { ready: boolean }>): void {
    const batch = slot.inFlight;
    if (!batch || batch.id !== r.id) return;
    slot.inFlight = undefined;
    if (this.closed) {
      this.onIdle?.();
      return;
    }
    const D = this.dimensions;
    if (r.ok && r.vectors.length === batch.items.length * D) {
      this.totals.batches++;
      this.totals.texts += batch.items.length;
      this.totals.tokens += r.stats.tokens;
      this.totals.paddedTokens += r.stats.paddedTokens;
      this.totals.tokenizeMs += r.stats.tokenizeMs;
      this.totals.inferMs += r.stats.inferMs;
      batch.items.forEach((item, k) => {
        const job = item.job;
        if (job.settled) return; // aborted meanwhile
        job.vectors.set(r.vectors.subarray(k * D, (k + 1) * D), item.index * D);
        if (--job.remaining === 0) this.settle(job, undefined, job.vectors);
      });
    } else {
      if (r.ok) this.log.error('Embedding failed: the model returned malformed vectors');
      else this.log.error(`Embedding failed: ${r.message}`);
      const err = new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'The embedding model failed');
      for (const item of batch.items) {
        this.dropQueued(item.job);
        this.settle(item.job, err);
      }
    }
    this.pump();
  }

  /** Resolves or rejects a job once (an aborted job may still get its reply later: ignored). */
  private settle(job: Job, err?: unknown, vectors?: Float32Array): void {
    if (job.settled) return;
    job.settled = true;
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    if (err !== undefined) job.reject(err);
    else job.resolve(vectors as Float32Array);
  }
}
