import { Global, Logger, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig, ConfigError, docqaCacheDir } from '@docqa/common';
import { CohereConnection } from '@docqa/cohere';
import { CohereGenerator } from './cohere/cohere.generator';
import { CohereReranker } from './cohere/cohere.reranker';
import { CohereRewriter } from './cohere/cohere.rewriter';
import { CohereTitler } from './cohere/cohere.titler';
import {
  GenerateInput,
  Generator,
  GENERATOR,
  GENERATORS,
  LOCAL_GENERATOR,
  Reranker,
  RERANKER,
  REWRITER,
  Rewriter,
  TITLER,
  Titler,
} from './generation.port';
import { LlamaRewriter, LlamaTitler } from './llama/llama.chat';
import { LlamaGenerator } from './llama/llama.generator';
import { OPENING_CHECK_WORDS } from './grounded/opening-check';
import { defaultLlmModelPath, LlamaRuntime } from './llama/llama-runtime';
import { LocalGenerator } from './local/local.generator';
import { withEvidenceFallback } from './grounded/evidence-fallback';
import { LocalReranker } from './local/local.reranker';
import { LocalRewriter } from './local/local.rewriter';
import { LocalTitler } from './local/local.titler';
import { OpenAiConnection } from './openai/openai-client';
import { OpenAiRewriter, OpenAiTitler } from './openai/openai.chat';
import { OpenAiGenerator } from './openai/openai.generator';
import {
  LLM_CONTEXT_SIZE,
  LLM_EVIDENCE,
  LLM_FIRST_TOKEN_TARGET_MS,
  LLM_FLASH_ATTENTION,
  LLM_MAX_ANSWER_TOKENS,
  LLM_MAX_QUEUE,
  LLM_OPENING_CHECK,
  LOCAL_ANSWER_MIN_MARGIN,
  LOCAL_RERANK_SEARCH_WEIGHT,
  OPENAI_MAX_ATTEMPTS,
  PROMPT_TOKEN_BUDGET,
} from './tuning';

/** The local generative model's runtime (one per process; loaded on first use). */
export const LLAMA_RUNTIME = Symbol('LLAMA_RUNTIME');

/** Which model answers, rewrites and titles: ANSWER_PROVIDER with `auto` resolved. */
export type AnswerProvider = 'extractive' | 'local-llm' | 'openai' | 'cohere';

/**
 * The provider of the embedded mode (nothing configured): chosen from the evaluation numbers, see
 * docs/adr/0017. When its model file is missing, answers fall back to the extractive provider.
 */
export const EMBEDDED_DEFAULT_PROVIDER: 'extractive' | 'local-llm' = 'extractive';

const log = new Logger('AnswersModule');

/** The local extractive answerer, with LOCAL_ANSWER_MIN_MARGIN. */
export function createLocalGenerator(): LocalGenerator {
  return new LocalGenerator({ minMargin: LOCAL_ANSWER_MIN_MARGIN });
}

function cohere(cfg: AppConfig): CohereConnection | undefined {
  return cfg.models.cohereApiKey
    ? { apiKey: cfg.models.cohereApiKey, baseUrl: cfg.models.cohereBaseUrl }
    : undefined;
}

function openAi(cfg: AppConfig): OpenAiConnection | undefined {
  if (!cfg.models.openaiBaseUrl && !cfg.models.openaiApiKey) return undefined;
  return {
    baseUrl: cfg.models.openaiBaseUrl,
    apiKey: cfg.models.openaiApiKey,
    model: cfg.models.openaiModel,
    timeoutMs: cfg.models.openaiTimeoutMs,
    maxAttempts: OPENAI_MAX_ATTEMPTS,
  };
}

/**
 * ANSWER_PROVIDER with `auto` resolved: Cohere when COHERE_API_KEY is set, else OpenAI-compatible
 * when OPENAI_BASE_URL or OPENAI_API_KEY is set, else EMBEDDED_DEFAULT_PROVIDER. An explicit
 * provider whose settings are missing is a configuration error (the process does not start).
 */
export function resolveAnswerProvider(cfg: AppConfig): AnswerProvider {
  const p = cfg.models.answerProvider ?? 'auto';
  if (p === 'cohere' && !cohere(cfg)) {
    throw new ConfigError('Invalid configuration: ANSWER_PROVIDER=cohere needs COHERE_API_KEY');
  }
  if (p === 'openai' && !openAi(cfg)) {
    throw new ConfigError(
      'Invalid configuration: ANSWER_PROVIDER=openai needs OPENAI_BASE_URL or OPENAI_API_KEY',
    );
  }
  if (p !== 'auto') return p;
  if (cohere(cfg)) return 'cohere';
  if (openAi(cfg)) return 'openai';
  return EMBEDDED_DEFAULT_PROVIDER;
}

/** The GGUF the local generative model loads: LLM_MODEL_PATH, else where `models:install -- llm` puts it. */
export function llmModelPath(cfg: AppConfig): string {
  return cfg.models.llmModelPath ?? defaultLlmModelPath(docqaCacheDir(cfg.core.docqaCacheDir));
}

export function createLlamaRuntime(cfg: AppConfig): LlamaRuntime {
  return new LlamaRuntime({
    modelPath: llmModelPath(cfg),
    contextSize: cfg.models.llmContextSize ?? LLM_CONTEXT_SIZE,
    threads: cfg.models.llmThreads,
    flashAttention: LLM_FLASH_ATTENTION,
    timeoutMs: cfg.models.llmTimeoutMs,
    maxQueue: LLM_MAX_QUEUE,
  });
}

export function createLlamaGenerator(
  cfg: AppConfig,
  runtime: LlamaRuntime,
  local: LocalGenerator,
): LlamaGenerator {
  return new LlamaGenerator(runtime, {
    promptTokenBudget: cfg.models.promptTokenBudget ?? PROMPT_TOKEN_BUDGET,
    firstTokenTargetMs: LLM_FIRST_TOKEN_TARGET_MS,
    maxAnswerTokens: cfg.models.llmMaxAnswerTokens ?? LLM_MAX_ANSWER_TOKENS,
    evidence: LLM_EVIDENCE,
    openingCheckWords: LLM_OPENING_CHECK ? OPENING_CHECK_WORDS : 0,
    extractive: (input) => local.compose(input),
  });
}

/**
 * Every generator `config.model` may name: extractive and local-llm always (local-llm answers 503
 * while its file is missing), OpenAI-compatible and Cohere when configured.
 */
export function createGenerators(cfg: AppConfig, local: LocalGenerator, runtime: LlamaRuntime): Generator[] {
  // Every provider shows its evidence where its model finds no answer in passages that are about
  // the question, as the extractive answerer does (issue 58).
  const judge = (input: GenerateInput) => local.evidenceFor(input);
  const list: Generator[] = [local, withEvidenceFallback(createLlamaGenerator(cfg, runtime, local), judge)];
  const o = openAi(cfg);
  if (o)
    list.push(
      withEvidenceFallback(
        new OpenAiGenerator({ ...o, promptTokenBudget: cfg.models.promptTokenBudget ?? PROMPT_TOKEN_BUDGET }),
        judge,
      ),
    );
  const c = cohere(cfg);
  if (c)
    list.push(withEvidenceFallback(new CohereGenerator({ ...c, model: cfg.models.cohereChatModel }), judge));
  return list;
}

/** The default answer generator: the resolved provider's (one of `generators`). */
export function createGenerator(cfg: AppConfig, generators: Generator[], runtime: LlamaRuntime): Generator {
  const provider = resolveAnswerProvider(cfg);
  const pick = (p: Generator['provider']) => generators.find((g) => g.provider === p) as Generator;
  switch (provider) {
    case 'cohere':
      return pick('cohere');
    case 'openai':
      return pick('openai');
    case 'local-llm':
      if (cfg.models.answerProvider === 'auto' && !runtime.installed()) {
        log.warn(
          `the local language model is not installed (${llmModelPath(cfg)}): answers use the extractive provider; ` +
            'run `npm run models:install -- llm` to install it',
        );
        return pick('local');
      }
      return pick('local-llm');
    default:
      return pick('local');
  }
}

export function createRewriter(cfg: AppConfig, runtime: LlamaRuntime, generator: Generator): Rewriter {
  switch (generator.provider) {
    case 'cohere':
      return new CohereRewriter({ ...(cohere(cfg) as CohereConnection), model: cfg.models.cohereChatModel });
    case 'openai':
      return new OpenAiRewriter(openAi(cfg) as OpenAiConnection);
    case 'local-llm':
      // With LLM_EVIDENCE=chosen the extractive rules retrieve and choose, and they work on the
      // extractive rewrite: the 1.5B model's rewrite of a follow-up dropped the subject the
      // conversation gave, or stated an invented answer, and the rules then declined (docs/adr/0018).
      return LLM_EVIDENCE === 'chosen' ? new LocalRewriter() : new LlamaRewriter(runtime);
    default:
      return new LocalRewriter();
  }
}

export function createTitler(cfg: AppConfig, runtime: LlamaRuntime, generator: Generator): Titler {
  switch (generator.provider) {
    case 'cohere':
      return new CohereTitler({ ...(cohere(cfg) as CohereConnection), model: cfg.models.cohereChatModel });
    case 'openai':
      return new OpenAiTitler(openAi(cfg) as OpenAiConnection);
    case 'local-llm':
      return new LlamaTitler(runtime);
    default:
      return new LocalTitler();
  }
}

/**
 * Reranker: Cohere rerank when COHERE_API_KEY and COHERE_RERANK_MODEL are set, none (null) with
 * Cohere but no rerank model, and the local lexical reranker (with LOCAL_RERANK_SEARCH_WEIGHT) on
 * the local provider.
 */
export function createReranker(cfg: AppConfig): Reranker | null {
  const c = cohere(cfg);
  if (!c) {
    return new LocalReranker({ searchOrderWeight: LOCAL_RERANK_SEARCH_WEIGHT });
  }
  return cfg.models.cohereRerankModel
    ? new CohereReranker({ ...c, model: cfg.models.cohereRerankModel })
    : null;
}

/**
 * Binds the answer-side model ports (the embedder is EmbeddingsModule's). GENERATOR, REWRITER
 * and TITLER follow ANSWER_PROVIDER (see resolveAnswerProvider); GENERATORS are all the generators
 * `config.model` may pick; LOCAL_GENERATOR is always the extractive one (`config.model: "local"`).
 * The local generative model is loaded by the first call that needs it and freed at shutdown.
 */
@Global()
@Module({
  providers: [
    { provide: LLAMA_RUNTIME, inject: [APP_CONFIG], useFactory: createLlamaRuntime },
    { provide: LOCAL_GENERATOR, useFactory: createLocalGenerator },
    {
      provide: GENERATORS,
      inject: [APP_CONFIG, LOCAL_GENERATOR, LLAMA_RUNTIME],
      useFactory: createGenerators,
    },
    { provide: GENERATOR, inject: [APP_CONFIG, GENERATORS, LLAMA_RUNTIME], useFactory: createGenerator },
    { provide: REWRITER, inject: [APP_CONFIG, LLAMA_RUNTIME, GENERATOR], useFactory: createRewriter },
    { provide: TITLER, inject: [APP_CONFIG, LLAMA_RUNTIME, GENERATOR], useFactory: createTitler },
    { provide: RERANKER, inject: [APP_CONFIG], useFactory: createReranker },
  ],
  exports: [LLAMA_RUNTIME, LOCAL_GENERATOR, GENERATORS, GENERATOR, REWRITER, TITLER, RERANKER],
})
export class AnswersModule {}
