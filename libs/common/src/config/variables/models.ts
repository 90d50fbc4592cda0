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
    name: 'LLM_MODEL_PATH',
    kind: 'path',
    description:
      'GGUF file of the local generative model (`local-llm`). Unset: DOCQA_CACHE_DIR/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf (`npm run models:install -- llm`); any chat GGUF llama.cpp runs may be named. A missing file is 503 CAPABILITY_DISABLED for `local-llm`.',
  },
  {
    name: 'LLM_TIMEOUT_MS',
    kind: 'int',
    default: '120000',
    description:
      'Time limit of one local model call, waiting in its queue included; past it the answer fails with 503 DEPENDENCY_UNAVAILABLE (an `error` event when streaming).',
  },
  {
    name: 'LOCAL_EMBEDDER',
    kind: 'enum',
    values: ['auto', 'minilm', 'bge-small', 'hashing'],
    default: 'auto',
    description:
      'Embedder when COHERE_API_KEY is unset: `minilm` (all-MiniLM-L6-v2) or `bge-small` (bge-small-en-v1.5), each refusing to start without its model (`npm run models:install`); `hashing` (lexical, no model); `auto`: the model most documents are embedded by, else the default (bge-small), when installed; else the other, else hashing with a warning. Set it explicitly when api and worker are separate processes. A change starts a new index version: run `npm run cli -- reembed` (docs/models.md).',
  },
  {
    name: 'LOCAL_EMBEDDER_MODEL_DIR',
    kind: 'path',
    description:
      'Directory of the installed local embedding model (manifest.json, model.onnx, tokenizer.json). Unset: DOCQA_CACHE_DIR/models/<model name>, where `npm run models:install` puts it.',
  },
  {
    name: 'LOCAL_EMBEDDER_PRECISION',
    kind: 'enum',
    values: ['auto', 'fp32', 'int8'],
    default: 'auto',
    description:
      'Graph of the local embedding model: `int8` (about 2x faster) or `fp32`. `auto`: int8 where the CPU has integer dot-product instructions (AVX-512 VNNI, AVX-VNNI, AMX, Arm dot product), else fp32. int8 is its own embedding space: switching re-embeds (`npm run cli -- reembed`, docs/models.md). Set it explicitly when api and workers run on different CPUs.',
  },
] as const satisfies readonly ConfigVariable[];
