/*
 * Values evaluation and benchmarks chose for the models. They are not settings: each comment says
 * where its value was measured. `ModelsConfig` fields that override one exist for tests only.
 */

/**
 * Local extractive answerer: the best answer sentence must score this many times the best
 * sentence of another document the question names as much before it is cited; below it the
 * answer says it found no clear answer. A wrong citation is worse than none (docs/evaluation.md,
 * docs/adr/0021-extractive-answerer-rules.md).
 */
export const LOCAL_ANSWER_MIN_MARGIN = 1.4;

/**
 * Local reranker: weight of the search order against its lexical order, fused by reciprocal rank
 * (1: alike). Measured in docs/adr/0030-convex-fusion.md.
 */
export const LOCAL_RERANK_SEARCH_WEIGHT = 1;

/** llama.cpp's flash attention: reads prompts 1.18x faster on 2 cores (docs/adr/0019-local-model-runtime.md, docs/benchmarks/ask.md). */
export const LLM_FLASH_ATTENTION = true;

/**
 * llama.cpp threads per CPU math core: one. More threads than cores spin-wait for each other at
 * every step: on 2 cores with the 1.5B model and a 989-token prompt, 4 threads took 26 s to the
 * first token and 6.7 s per token, 2 threads 13 s and 0.05 s (docs/adr/0019-local-model-runtime.md).
 */
export const LLM_THREADS_PER_CORE = 1;

/**
 * Passages the local model answers from: those the extractive answerer cites (`chosen`); where it
 * declines, the not-found answer without a model call. `retrieved` (every passage within the
 * budget) lost on the evaluation (docs/adr/0018-local-model-writes-extractive-rules-choose.md).
 */
export const LLM_EVIDENCE = 'chosen' as const;

/**
 * With `chosen` evidence, hold a single answer's first words and give the extractive answer when
 * they use none of the question's words (docs/adr/0018-local-model-writes-extractive-rules-choose.md).
 */
export const LLM_OPENING_CHECK = true;

/**
 * Time the local model may spend reading an answer prompt: passages are cut to what it reads in
 * this time at the rate it read earlier prompts (docs/adr/0019-local-model-runtime.md).
 */
export const LLM_FIRST_TOKEN_TARGET_MS = 12_000;

/**
 * Tokens of retrieved passages a generative answer prompt may hold, best first; prompt reading
 * dominates answer time on CPUs (docs/adr/0019-local-model-runtime.md, docs/answer-providers.md).
 */
export const PROMPT_TOKEN_BUDGET = 1500;

/** Longest answer the local model writes, in tokens (docs/answer-providers.md). */
export const LLM_MAX_ANSWER_TOKENS = 160;

/** Context window of the local model: the prompt budget plus instructions, question and answer (docs/answer-providers.md). */
export const LLM_CONTEXT_SIZE = 4096;

/**
 * Local model calls that may wait for its one context; one more is 503 "busy" instead of queueing
 * for minutes (docs/adr/0016-answer-providers.md).
 */
export const LLM_MAX_QUEUE = 16;

/** Attempts of one OpenAI-compatible request on 408/409/429/5xx and network errors (docs/answer-providers.md). */
export const OPENAI_MAX_ATTEMPTS = 4;
