import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LLM_THREADS_PER_CORE } from '../tuning';
import type {
  Llama,
  LlamaChatSession,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaModel,
} from 'node-llama-cpp';
import { DomainError, ErrorCode } from '@docqa/common';
import { PromptRate } from './prompt-rate';
import { SerialQueue } from './serial-queue';

type NodeLlamaCpp = typeof import('node-llama-cpp');

/**
 * node-llama-cpp is an ES module with top-level await, which `require` cannot load; TypeScript
 * compiles `import()` to `require` under CommonJS, so the real dynamic import is built at run time.
 * Its source differs per evaluation of this module: V8 caches compiled code by source together with
 * the dynamic-import hook of its first compile, so where this module is evaluated more than once
 * in a process (Jest: once per test file) a cached copy would import through the first (torn-down)
 * evaluation's module loader.
 */
export const importEsm = new Function('specifier', `return import(specifier); // ${randomUUID()}`) as (
  s: string,
) => Promise<unknown>;

/** The model `npm run models:install -- llm` installs, and where (scripts/models/llm.js). */
export const DEFAULT_LLM_FILE = 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf';

/** LLM_MODEL_PATH unset: DOCQA_CACHE_DIR/models/<DEFAULT_LLM_FILE>. */
export function defaultLlmModelPath(cacheDir: string): string {
  return path.join(cacheDir, 'models', DEFAULT_LLM_FILE);
}

export interface LlamaRuntimeOptions {
  /** LLM_MODEL_PATH: the GGUF file. */
  modelPath: string;
  /** LLM_CONTEXT_SIZE (tokens of prompt plus answer). */
  contextSize: number;
  /** Undefined: LLM_THREADS_PER_CORE per CPU math core (`defaultLlmThreads`); tests pass fewer. */
  threads?: number;
  /** LLM_FLASH_ATTENTION (default off here, on through the configuration). */
  flashAttention?: boolean;
  /** LLM_TIMEOUT_MS: one call, waiting in the queue included. */
  timeoutMs: number;
  /** LLM_MAX_QUEUE: calls that may wait for the context. */
  maxQueue: number;
}

/**
 * Threads of the local model: LLM_THREADS_PER_CORE per core llama.cpp computes on (`cpuMathCores`),
 * never node-llama-cpp's own default (`maxThreads`, twice that on this 2-core machine kind), where
 * the threads spin-wait for each other (measured in docs/adr/0019).
 */
export function defaultLlmThreads(llama: Pick<Llama, 'cpuMathCores'>): number {
  return Math.max(1, Math.round(llama.cpuMathCores * LLM_THREADS_PER_CORE));
}

/** The loaded model with its one context sequence; handed to one job at a time. */
export interface LlamaHandle {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  /** The LlamaChatSession class (from the dynamically imported module). */
  ChatSession: typeof LlamaChatSession;
  /** A GBNF grammar, compiled once per text. */
  grammar(gbnf: string): Promise<LlamaGrammar>;
  countTokens(text: string): number;
}

/**
 * The local generative model in this process: node-llama-cpp's prebuilt CPU binary (never built or
 * downloaded at run time), the GGUF at LLM_MODEL_PATH loaded on first use (about 2 s and 2.2 GB
 * resident for the 1.5B model; a process that never answers with it never loads it), one context
 * with one sequence, and a queue that gives that sequence to one call at a time. A call's time
 * limit counts from when it is queued. A missing file is CAPABILITY_DISABLED (503), a file that
 * does not load DEPENDENCY_UNAVAILABLE (503); neither is ever a 500.
 */
export class LlamaRuntime {
  /** The name usage reports: the file name without `.gguf`. */
  readonly modelName: string;
  /** How fast this model reads prompts here, learned from its answers (LlamaGenerator). */
  readonly promptRate = new PromptRate();
  private readonly queue: SerialQueue;
  private loading?: Promise<LlamaHandle>;
  private handle?: LlamaHandle;
  private closed = false;
  private readonly log = new Logger('LlamaRuntime');

  constructor(private readonly o: LlamaRuntimeOptions) {
    this.modelName = path.basename(o.modelPath).replace(/\.gguf$/i, '');
    this.queue = new SerialQueue(o.maxQueue, 'The local language model');
  }

  /** Whether the GGUF file is there. */
  installed(): boolean {
    try {
      return fs.statSync(this.o.modelPath).isFile();
    } catch {
      return false;
    }
  }

  /** Throws CAPABILITY_DISABLED (503) with what the operator has to do when the file is missing. */
  assertInstalled(): void {
    if (this.installed()) return;
    throw new DomainError(
      ErrorCode.CAPABILITY_DISABLED,
      'The local language model is not installed on this server (an operator runs `npm run models:install -- llm` or sets LLM_MODEL_PATH)',
      { field: 'config.model' },
    );
  }

  /** Calls waiting for the model. */
  get waiting(): number {
    return this.queue.waiting;
  }

  /**
   * Runs `job` with the model when its turn comes (loading the model first if needed). `signal`
   * (the caller going away) and the time limit abort the wait and the generation; the time limit
   * surfaces as DEPENDENCY_UNAVAILABLE naming `what`, the caller's abort as its own reason.
   */
  async run<T>(
    what: string,
    signal: AbortSignal | undefined,
    job: (m: LlamaHandle, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    this.assertInstalled();
    const timeout = AbortSignal.timeout(this.o.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      return await this.queue.run(async () => {
        if (combined.aborted) throw combined.reason;
        const m = await this.load();
        // The sequence keeps the previous call's tokens: node-llama-cpp's chat evaluation keeps only
        // the leading tokens the new prompt shares with them (the instructions of the same kind of
        // call) and erases the rest before evaluating (`adaptStateToTokens(tokens, false)`: no
        // context shift). A kept token's state depends on the tokens before it alone, so an answer
        // never sees another request's tokens, and the shared instructions are not evaluated again.
        return await job(m, combined);
      }, combined);
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      if (timeout.aborted) {
        throw new DomainError(
          ErrorCode.DEPENDENCY_UNAVAILABLE,
          `${what} timed out after ${this.o.timeoutMs} ms`,
        );
      }
      if (err instanceof DomainError) throw err;
      const e = err as Error;
      this.log.warn(`${what} failed: ${e?.name}: ${String(e?.message ?? err).slice(0, 300)}`);
      throw new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, `${what} failed`);
    }
  }

  private load(): Promise<LlamaHandle> {
    if (this.closed)
      return Promise.reject(new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'The server is shutting down'));
    this.loading ??= this.doLoad().catch((err) => {
      this.loading = undefined; // a later call tries again (the file may be replaced)
      const e = err as Error;
      this.log.error(
        `could not load ${this.o.modelPath}: ${e?.name}: ${String(e?.message ?? err).slice(0, 300)}`,
      );
      throw new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'The local language model could not be loaded');
    });
    return this.loading;
  }

  private async doLoad(): Promise<LlamaHandle> {
    const t0 = Date.now();
    process.env.NODE_LLAMA_CPP_SKIP_DOWNLOAD ??= 'true';
    const lib = (await importEsm('node-llama-cpp')) as NodeLlamaCpp;
    const llama = await lib.getLlama({
      gpu: false,
      build: 'never',
      logLevel: lib.LlamaLogLevel.warn,
      // llama.cpp's own warnings (e.g. "control-looking token") are harmless and noisy.
      logger: (level, message) => {
        if (level === lib.LlamaLogLevel.error || level === lib.LlamaLogLevel.fatal)
          this.log.warn(`llama.cpp: ${message.trim().slice(0, 300)}`);
      },
    });
    try {
      const model = await llama.loadModel({ modelPath: this.o.modelPath, gpuLayers: 0 });
      const context = await model.createContext({
        contextSize: this.o.contextSize,
        batchSize: 512,
        threads: this.o.threads ?? defaultLlmThreads(llama),
        flashAttention: this.o.flashAttention ?? false,
      });
      const grammars = new Map<string, Promise<LlamaGrammar>>();
      const handle: LlamaHandle = {
        llama,
        model,
        context,
        sequence: context.getSequence(),
        ChatSession: lib.LlamaChatSession,
        grammar: (gbnf) => {
          let g = grammars.get(gbnf);
          if (!g) {
            g = llama.createGrammar({ grammar: gbnf });
            grammars.set(gbnf, g);
          }
          return g;
        },
        countTokens: (text) => model.tokenize(text).length,
      };
      this.handle = handle;
      this.log.log(
        `loaded ${this.modelName} in ${Date.now() - t0} ms (context ${context.contextSize} tokens, ${context.currentThreads} threads)`,
      );
      return handle;
    } catch (err) {
      await llama.dispose().catch(() => undefined);
      throw err;
    }
  }

  /** Nest calls this at shutdown (the runtime is a provider of AnswersModule). */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  /** Frees the model (and its memory) once the running call is done; later calls fail with 503. */
  async close(): Promise<void> {
    this.closed = true;
    const loading = this.loading;
    if (!loading) return;
    await this.queue.run(async () => undefined).catch(() => undefined);
    const h = this.handle ?? (await loading.catch(() => undefined));
    if (!h) return;
    await h.context.dispose().catch(() => undefined);
    await h.model.dispose().catch(() => undefined);
    await h.llama.dispose().catch(() => undefined);
  }
}
