import type { ConfigVariable } from '../config.schema';

/** Answer providers and embedders: Cohere, OpenAI-compatible, the local model and embedder. */
export const MODELS_VARIABLES = [
  {
    name: 'COHERE_API_KEY',
    kind: 'string',
    secret: true,
    description:
      'Cohere API key. Unset: the local provider (local embedder, see LOCAL_EMBEDDER; extractive answers).',
  },
  { name: 'COHERE_BASE_URL', kind: 'url', description: 'Cohere API base URL override.' },
  {
    name: 'COHERE_EMBED_MODEL',
    kind: 'string',
    default: 'embed-english-v3.0',
    description:
      'Cohere embedding model (used when COHERE_API_KEY is set). Changing it starts a new search index version; re-index documents afterwards.',
  },
  {
    name: 'COHERE_CHAT_MODEL',
    kind: 'string',
    default: 'command-a-03-2025',
    description:
      'Cohere chat model for answers, query rewriting and titles (used when COHERE_API_KEY is set); `config.model` on /ask may pick another allowed model.',
  },
  {
    name: 'COHERE_RERANK_MODEL',
    kind: 'string',
    description:
      'Cohere rerank model (e.g. `rerank-v3.5`) applied to retrieved chunks before answering, when COHERE_API_KEY is set. Unset: no rerank.',
  },
  {
    name: 'LOCAL_ANSWER_MIN_MARGIN',
    kind: 'string',
    default: '1.4',
    description:
      'Local provider: how much better the best answer sentence must score than the best sentence of another document the question names as much before it is cited; below it the answer says it found no clear answer. Lower answers more with less precise citations (docs/evaluation.md). A number >= 1.',
  },
  {
    name: 'LOCAL_RERANK_SEARCH_WEIGHT',
    kind: 'string',
    default: '1',
    description:
      "Local reranker: weight of the search order against the reranker's lexical order, fused by reciprocal rank (1: alike; 0: lexical order alone). A number >= 0 (docs/adr/0030).",
  },
  {
    name: 'ANSWER_PROVIDER',
    kind: 'enum',
    values: ['auto', 'extractive', 'local-llm', 'openai', 'cohere'],
    default: 'auto',
    description:
      'Model behind answers, query rewriting and titles. `auto`: Cohere when COHERE_API_KEY is set, else the OpenAI-compatible server when OPENAI_BASE_URL or OPENAI_API_KEY is set, else the embedded default (docs/adr/0017). `extractive`: sentences from the passages (no model). `local-llm`: the GGUF at LLM_MODEL_PATH. `/ask` may pick another with `config.model`.',
  },
  {
    name: 'OPENAI_BASE_URL',
    kind: 'url',
    description:
      'Base URL of an OpenAI-compatible chat completions API (vLLM, Ollama, llama.cpp server, LM Studio: e.g. `http://llm.internal:8000/v1`). Unset with OPENAI_API_KEY set: https://api.openai.com/v1.',
  },
  {
    name: 'OPENAI_API_KEY',
    kind: 'string',
    secret: true,
    description:
      'API key sent as a bearer token to OPENAI_BASE_URL (any non-empty value for servers without keys).',
  },
  {
    name: 'OPENAI_MODEL',
    kind: 'string',
    default: 'gpt-4o-mini',
    description: 'Chat model name on the OpenAI-compatible server (answers, query rewriting, titles).',
  },
  {
    name: 'OPENAI_TIMEOUT_MS',
    kind: 'int',
    default: '60000',
    description:
      'Time limit of one request to the OpenAI-compatible server (a streamed answer: until its last byte).',
  },
  {
    name: 'OPENAI_MAX_ATTEMPTS',
    kind: 'int',
    default: '4',
    description:
      'Attempts of one request on 408/409/429/5xx and network errors, waiting as Retry-After says (else exponential backoff). A stream is only retried before it started.',
  },
  {
    name: 'LLM_MODEL_PATH',
    kind: 'path',
    description:
      'GGUF file of the local generative model (`local-llm`). Unset: DOCQA_CACHE_DIR/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf (`npm run models:install -- llm`); any chat GGUF llama.cpp runs may be named. A missing file is 503 CAPABILITY_DISABLED for `local-llm`.',
  },
  {
    name: 'LLM_CONTEXT_SIZE',
    kind: 'int',
    default: '4096',
    description: 'Context window (tokens) of the local generative model: prompt plus answer.',
  },
  {
    name: 'LLM_THREADS',
    kind: 'int',
    description:
      'CPU threads of the local generative model. Unset: one per core (more make its threads spin-wait).',
  },
  {
    name: 'LLM_FLASH_ATTENTION',
    kind: 'bool',
    default: 'true',
    description:
      "llama.cpp's flash attention in the local generative model: prompts are read 1.18x faster on 2 cores (docs/benchmarks/ask.md).",
  },
  {
    name: 'LLM_MAX_ANSWER_TOKENS',
    kind: 'int',
    default: '160',
    description: 'Longest answer the local generative model writes, in tokens.',
  },
  {
    name: 'LLM_TIMEOUT_MS',
    kind: 'int',
    default: '120000',
    description:
      'Time limit of one local model call, waiting in its queue included; past it the answer fails with 503 DEPENDENCY_UNAVAILABLE (an `error` event when streaming).',
  },
  {
    name: 'LLM_MAX_QUEUE',
    kind: 'int',
    default: '16',
    description:
      'Local model calls that may wait for the one model context; one more is refused with 503 DEPENDENCY_UNAVAILABLE instead of queueing for minutes.',
  },
  {
    name: 'PROMPT_TOKEN_BUDGET',
    kind: 'int',
    default: '1500',
    description:
      'Tokens of retrieved passages a generative answer prompt (local-llm, openai) may hold, best first, the last one trimmed. Prompt reading dominates answer time on CPUs.',
  },
  {
    name: 'LLM_FIRST_TOKEN_TARGET_MS',
    kind: 'int',
    default: '12000',
    description:
      'Time the local generative model may spend reading an answer prompt: passages are cut to what it reads in this time at the rate it read earlier prompts in this process. The first answer after loading uses PROMPT_TOKEN_BUDGET alone; a large value (e.g. 600000) turns the cut off.',
  },
  {
    name: 'LLM_EVIDENCE',
    kind: 'enum',
    values: ['chosen', 'retrieved'],
    default: 'chosen',
    description:
      'Passages the local generative model answers from. `chosen`: those the extractive answerer cites; where it declines, the not-found answer without a model call. `retrieved`: every retrieved passage within PROMPT_TOKEN_BUDGET, declining left to the model.',
  },
  {
    name: 'LLM_OPENING_CHECK',
    kind: 'bool',
    default: 'true',
    description:
      "With LLM_EVIDENCE=chosen, hold the first six words of a single local model answer; when they use none of the question's words while the extractive answer does, stop the model and give the extractive answer. Costs about half a second of first delta. `false` streams from the first word.",
  },
  {
    name: 'LOCAL_EMBEDDER',
    kind: 'enum',
    values: ['auto', 'minilm', 'bge-small', 'hashing'],
    default: 'auto',
    description:
      'Embedder when COHERE_API_KEY is unset: `minilm` (all-MiniLM-L6-v2) or `bge-small` (bge-small-en-v1.5), each refusing to start without its model (`npm run models:install`); `hashing` (lexical, no model); `auto`: the default model when installed, else the other, else hashing with a warning. Set it explicitly when api and worker are separate processes. A change starts a new index version: run `npm run cli -- reembed` (docs/models.md).',
  },
  {
    name: 'LOCAL_EMBEDDER_MODEL_DIR',
    kind: 'path',
    description:
      'Directory of the installed local embedding model (manifest.json, model.onnx, tokenizer.json). Unset: DOCQA_CACHE_DIR/models/<model name>, where `npm run models:install` puts it.',
  },
  {
    name: 'LOCAL_EMBEDDER_SESSIONS',
    kind: 'int',
    default: '2',
    description:
      'Batches the local embedding model embeds at once (1-64), each in its own thread and onnxruntime session; it uses SESSIONS x LOCAL_EMBEDDER_THREADS cores (docs/benchmarks/embedder.md).',
  },
  {
    name: 'LOCAL_EMBEDDER_THREADS',
    kind: 'int',
    default: '1',
    description:
      'CPU threads of one local embedding model inference (onnxruntime intra-op threads of each session).',
  },
  {
    name: 'BACKGROUND_THREADS_LOW_PRIORITY',
    kind: 'bool',
    default: 'true',
    description:
      "Run the local embedder's and PDF extraction's threads at nice 10, so the event loop that answers requests gets the cores first while documents are indexed (docs/adr/0036).",
  },
  {
    name: 'LOCAL_EMBEDDER_BATCH_SIZE',
    kind: 'int',
    default: '2',
    description:
      'Chunks per local embedding model inference (1-256). 2 was fastest on 2 cores, and a query waits behind a smaller batch (docs/benchmarks/embedder.md).',
  },
  {
    name: 'LOCAL_EMBEDDER_PRECISION',
    kind: 'enum',
    values: ['auto', 'fp32', 'int8'],
    default: 'auto',
    description:
      'Graph of the local embedding model: `int8` (about 2x faster) or `fp32`. `auto`: int8 where the CPU has integer dot-product instructions (AVX-512 VNNI, AVX-VNNI, AMX, Arm dot product), else fp32. int8 is its own embedding space: switching re-embeds (`npm run cli -- reembed`, docs/models.md).',
  },
] as const satisfies readonly ConfigVariable[];
