/**
 * The one place where configuration variables are declared. `.env.example` and
 * docs/configuration.md are checked against this list by a unit test, so they cannot drift.
 */
export type ConfigKind = 'string' | 'port' | 'int' | 'bool' | 'url' | 'path' | 'enum';

export interface ConfigVariable {
  name: string;
  kind: ConfigKind;
  /** Default used when the variable is unset; undefined means "unset = embedded default or public endpoint". */
  default?: string;
  values?: readonly string[];
  secret?: boolean;
  description: string;
}

export const CONFIG_VARIABLES = [
  {
    name: 'NODE_ENV',
    kind: 'enum',
    values: ['development', 'production', 'test'],
    default: 'development',
    description: 'Runtime mode; production requires APP_SECRET to be set explicitly.',
  },
  {
    name: 'LOG_LEVEL',
    kind: 'enum',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    description: 'Minimum level of the JSON logs.',
  },
  {
    name: 'LOG_FILE',
    kind: 'path',
    description: 'Append JSON logs to this file instead of standard output.',
  },
  {
    name: 'DATA_DIR',
    kind: 'path',
    default: './data',
    description:
      'Directory of the embedded defaults: PGlite database, Temporal SQLite file, embedded search index, generated TLS pair and APP_SECRET.',
  },
  {
    name: 'DOCQA_CACHE_DIR',
    kind: 'path',
    description:
      'Cache of what the first `npm start` provisions (Temporal CLI, embedding model, its converter venv), shared by every data dir. Unset: ~/.cache/docqa.',
  },
  {
    name: 'MEMORY_ALLOCATOR',
    kind: 'enum',
    values: ['auto', 'jemalloc', 'system'],
    default: 'auto',
    description:
      "The malloc `npm start` runs the product on. auto: jemalloc where libjemalloc.so.2 is installed (Debian: libjemalloc2), run as a child process of `npm start` with it preloaded, else the system's; jemalloc: that, or refuse to start without it; system: the C library's. On the embedded engine, glibc's malloc keeps growing through long indexing runs and jemalloc does not (docs/benchmarks/sharepoint.md). The containers (api, worker) are started without `npm start` and use the system's.",
  },
  { name: 'HTTPS_PORT', kind: 'port', default: '8443', description: 'Port of the HTTPS API.' },
  {
    name: 'HTTP_PORT',
    kind: 'port',
    default: '8080',
    description: 'Port of the plain-HTTP listener, which refuses every request with 403 HTTPS_REQUIRED.',
  },
  { name: 'BIND_HOST', kind: 'string', default: '0.0.0.0', description: 'Address both listeners bind to.' },
  {
    name: 'TLS_CERT_FILE',
    kind: 'path',
    description:
      'PEM certificate (chain) for HTTPS. Unset: a self-signed pair is generated once into DATA_DIR/tls.',
  },
  {
    name: 'TLS_KEY_FILE',
    kind: 'path',
    description: 'PEM private key for HTTPS. Must be set together with TLS_CERT_FILE.',
  },
  {
    name: 'PUBLIC_BASE_URL',
    kind: 'url',
    description:
      "https:// address clients reach the API at (behind a load balancer: its public name), used for absolute URLs in responses (avatar_url, chatbot citation links). Never taken from the request's Host header. Unset: https://localhost:HTTPS_PORT, the address `npm start` prints.",
  },
  {
    name: 'TRUST_PROXY',
    kind: 'bool',
    default: 'false',
    description: 'Honour X-Forwarded-Proto/For from a TLS-terminating proxy in front of the HTTP port.',
  },
  {
    name: 'APP_SECRET',
    kind: 'string',
    secret: true,
    description:
      'Key for token encryption and signing (at least 32 characters). Unset: generated once into DATA_DIR/app-secret.',
  },
  {
    name: 'DATABASE_URL',
    kind: 'url',
    secret: true,
    description:
      'postgres:// URL of the database. Unset: embedded PGlite in DATA_DIR/pglite served over the Postgres wire protocol.',
  },
  {
    name: 'DATABASE_POOL_SIZE',
    kind: 'int',
    default: '10',
    description: 'Maximum connections per process (the embedded PGlite uses 1).',
  },
  {
    name: 'DATABASE_POOL_WAIT_MS',
    kind: 'int',
    default: '20000',
    description:
      'Longest wait for a free pool connection (or a new connection to open). Past it the request answers 503 DEPENDENCY_UNAVAILABLE and an indexing step fails as retryable. Long enough that a burst of indexing steps on a busy host queues instead of failing.',
  },
  {
    name: 'TEMPORAL_ADDRESS',
    kind: 'string',
    description:
      'host:port of the Temporal frontend. Unset: `temporal server start-dev` is spawned with its SQLite file in DATA_DIR.',
  },
  {
    name: 'TEMPORAL_NAMESPACE',
    kind: 'string',
    default: 'default',
    description: 'Temporal namespace for workflows.',
  },
  {
    name: 'TEMPORAL_CLI_PATH',
    kind: 'path',
    description:
      'Path of the `temporal` CLI used for the embedded dev server. Unset: PATH, then ~/.cache/docqa/temporal/bin/temporal.',
  },
  {
    name: 'TEMPORAL_DEV_PORT',
    kind: 'port',
    default: '7233',
    description: 'Frontend port of the embedded Temporal dev server (only when TEMPORAL_ADDRESS is unset).',
  },
  {
    name: 'TEMPORAL_UI_PORT',
    kind: 'port',
    default: '8233',
    description: 'Port of the embedded Temporal Web UI.',
  },
  {
    name: 'TEMPORAL_TASK_QUEUE',
    kind: 'string',
    default: 'docqa-indexing',
    description: 'Task queue of the indexing workflows and activities.',
  },
  {
    name: 'ELASTICSEARCH_URL',
    kind: 'url',
    secret: true,
    description:
      'URL of the Elasticsearch 8.x cluster. Unset: the embedded search engine in DATA_DIR/search.',
  },
  {
    name: 'SEARCH_INDEX_PREFIX',
    kind: 'string',
    default: 'docqa-chunks',
    description:
      'Name of the Elasticsearch chunk alias and prefix of its versioned indices and templates (`<prefix>-v<n>-<embedder>-<dims>`).',
  },
  {
    name: 'SEARCH_FUSION',
    kind: 'enum',
    values: ['convex', 'rrf'],
    default: 'convex',
    description:
      "How hybrid search combines its BM25 and vector results: `convex` (each leg's scores min-max normalised over its candidates, then averaged with the embedder's vector weight) or `rrf` (reciprocal rank fusion, k = 60). convex ranked better on SciFact and on the dev questions on both engines (docs/benchmarks/search.md).",
  },
  {
    name: 'S3_ENDPOINT',
    kind: 'url',
    description: 'S3 endpoint override (S3-compatible stores). Unset: AWS.',
  },
  { name: 'S3_REGION', kind: 'string', default: 'us-east-1', description: 'Default S3 region.' },
  {
    name: 'S3_FORCE_PATH_STYLE',
    kind: 'bool',
    default: 'false',
    description: 'Use path-style S3 addressing (most S3-compatible stores need it).',
  },
  {
    name: 'S3_BUCKET',
    kind: 'string',
    description: 'Bucket the server may read without request credentials (server-configured bucket access).',
  },
  {
    name: 'UPLOAD_S3_BUCKET',
    kind: 'string',
    description:
      "Bucket of the upload store (POST /index/upload), reached with the S3_* settings and the server's own AWS identity; keys start with the account id. Unset: files are kept under DATA_DIR/uploads (not in production, where API and workers do not share a data directory: uploads answer 503 without a bucket).",
  },
  {
    name: 'UPLOAD_MAX_FILES',
    kind: 'int',
    default: '100',
    description: 'Files one upload request may carry; more gets 413 and nothing is stored.',
  },
  {
    name: 'UPLOAD_MAX_FILE_BYTES',
    kind: 'int',
    default: '104857600',
    description:
      'Largest uploaded file; a larger one gets 413 and nothing of the request is stored. Files above INDEXING_MAX_FILE_BYTES would be stored but end ERROR, so keep it at most that.',
  },
  {
    name: 'INDEXING_CONCURRENCY',
    kind: 'int',
    description:
      'Documents one docset indexing run works on at the same time (the sliding window of per-document child workflows). Unset: 16 with the embedded search engine, 64 with Elasticsearch. The embedded defaults are bound by the cores (2,000 small files: 16 indexed 1.8x as fast as 4 and 1.09x as fast as 64; 10,000: the same rate, less memory); with Elasticsearch the time is in round trips, and 64 indexed 10,000 small files 2.0x as fast as 16 (docs/benchmarks/sharepoint.md). PDF extraction and embedding have their own bounded pools, so a larger window queues there rather than overloading the cores.',
  },
  {
    name: 'INDEXING_CHILDREN_PER_RUN',
    kind: 'int',
    default: '200',
    description:
      'Per-document child workflows one docset workflow run starts before it continues-as-new (keeps its history bounded).',
  },
  {
    name: 'INDEXING_MAX_FILE_BYTES',
    kind: 'int',
    default: '104857600',
    description:
      'Largest source file that is indexed. A larger file still becomes a document: it ends ERROR with a reason naming this limit (checked against the listed size before any download, and while downloading), counted in progress as an error and by check-source as tooLargeFileCount.',
  },
  {
    name: 'WORKER_MAX_CONCURRENT_ACTIVITIES',
    kind: 'int',
    default: '100',
    description:
      'Activity slots of one worker process (Temporal maxConcurrentActivityTaskExecutions): how many indexing steps it runs at once. A step that stops answering frees its slot at its deadline or cancellation.',
  },
  {
    name: 'INDEXING_STALL_AFTER_MS',
    kind: 'int',
    default: '120000',
    description:
      'Health reports `indexing` down (503 on /health and /health/ready) when indexing activities have waited longer than this to start while no activity started, heartbeated or finished in that time: the worker is wedged.',
  },
  {
    name: 'INDEXING_UNAVAILABLE_RETRY_MS',
    kind: 'int',
    default: '15000',
    description:
      'First wait before an indexing step is tried again after it failed because a dependency was unavailable: the search engine down, past its deadline or not accepting writes (its write lock held past SEARCH_LOCK_TIMEOUT_MS), the database unreachable or out of pool connections, the embedding or answer model failing. Doubles per attempt up to 2 minutes, so a step outlasts about ten minutes of an outage without holding a worker slot.',
  },
  {
    name: 'SEARCH_READ_TIMEOUT_MS',
    kind: 'int',
    default: '10000',
    description:
      'Deadline of one search-index read (a search leg, a count). A read past it fails with 503 DEPENDENCY_UNAVAILABLE instead of waiting.',
  },
  {
    name: 'SEARCH_WRITE_TIMEOUT_MS',
    kind: 'int',
    default: '120000',
    description:
      'Deadline of one search-index write (a batch of chunks, a delete). Past it the indexing step fails as a retryable activity failure.',
  },
  {
    name: 'SEARCH_LOCK_TIMEOUT_MS',
    kind: 'int',
    default: '60000',
    description:
      'Embedded engine: longest wait for its write lock (writes and index maintenance take turns). Past it the write fails as retryable.',
  },
  {
    name: 'SEARCH_MAINTENANCE_TIMEOUT_MS',
    kind: 'int',
    default: '600000',
    description:
      'Embedded engine: deadline of index maintenance (compaction, folding new rows into the indices). Past it an error is logged and health reports search down until it ends.',
  },
  {
    name: 'SEARCH_EMBEDDED_CACHE_MB',
    kind: 'int',
    default: '256',
    description:
      "Embedded engine: memory its caches may hold, in MiB (three quarters for index data, a quarter for file metadata). The engine's own default (7 GiB) let the process grow by about 100 MB per 1,000 writes, caching the indices and files of table versions that maintenance had replaced (docs/benchmarks/sharepoint.md). The engine keeps the bound over time: it admits an entry and evicts for it just after, so for a moment its caches may hold up to about one and a half times the bound.",
  },
  {
    name: 'SEARCH_EMBEDDED_RELEASE_MEMORY',
    kind: 'bool',
    default: 'true',
    description:
      "Embedded engine: after each index maintenance run, give the memory it freed back to the system (glibc's malloc_trim, about 16 ms a run; nothing on other C libraries). glibc otherwise keeps the engine's freed buffers: the first 20 minutes of a 100,000-file library peaked about 230 MB higher without it (docs/benchmarks/sharepoint.md).",
  },
  {
    name: 'HEALTH_CHECK_TIMEOUT_MS',
    kind: 'int',
    default: '3000',
    description:
      'Deadline of each dependency probe of /health and /health/ready (Postgres query, Temporal, search read and write probes); a probe past it reports its part down.',
  },
  {
    name: 'SHUTDOWN_TIMEOUT_MS',
    kind: 'int',
    default: '25000',
    description:
      'On SIGINT/SIGTERM: time for a graceful stop (running activities are cancelled, engines closed) before the process exits anyway, logging what did not stop.',
  },
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
      'Local provider: how much better the best answer sentence must score than the best sentence of another document the question names as much before the answer cites it; below it the answer says it found no clear answer (a close page of the same document is cited beside it instead). Lower answers more questions with less precise citations (see docs/evaluation.md). A number >= 1.',
  },
  {
    name: 'LOCAL_RERANK_SEARCH_WEIGHT',
    kind: 'string',
    default: '1',
    description:
      "Local reranker (no Cohere rerank model): weight of the order hybrid search gave the candidates against the reranker's lexical order, fused by reciprocal rank (1: they count alike; 0: the lexical order alone). A number >= 0 (see docs/adr/0030).",
  },
  {
    name: 'ANSWER_PROVIDER',
    kind: 'enum',
    values: ['auto', 'extractive', 'local-llm', 'openai', 'cohere'],
    default: 'auto',
    description:
      'Model behind answers, query rewriting and titles. `auto`: Cohere when COHERE_API_KEY is set, else the OpenAI-compatible server when OPENAI_BASE_URL or OPENAI_API_KEY is set, else the embedded default (see docs/adr/0017). `extractive`: sentences lifted from the passages (no model). `local-llm`: the GGUF model at LLM_MODEL_PATH, run in the API process. `/ask` may still pick another configured provider with `config.model`.',
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
      'GGUF file of the local generative model (`local-llm`). Unset: DOCQA_CACHE_DIR/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf, where `npm run models:install -- llm` puts Qwen2.5-Coder-1.5B-Instruct Q4_K_M; any chat GGUF that llama.cpp runs may be named instead. A missing file answers 503 CAPABILITY_DISABLED for `local-llm` (never a 500).',
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
      "CPU threads of the local generative model. Unset: one per CPU core it computes on (node-llama-cpp's own default, twice that, makes its threads spin-wait for each other: many times slower).",
  },
  {
    name: 'LLM_FLASH_ATTENTION',
    kind: 'bool',
    default: 'true',
    description:
      "llama.cpp's flash attention in the local generative model: the prompt is read 1.18x faster on 2 cores (1,655 tokens; `node bench/llm/prefill.mjs`), which is most of the time to the first word of an answer (docs/benchmarks/ask.md).",
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
      'Tokens of retrieved passages a generative answer prompt (local-llm, openai) may hold: passages are taken best first and the last one trimmed to its most relevant sentences. Prompt processing dominates answer time on CPUs (about 150 tokens/s on 2 cores).',
  },
  {
    name: 'LLM_FIRST_TOKEN_TARGET_MS',
    kind: 'int',
    default: '12000',
    description:
      'Time the local generative model may spend reading an answer prompt before its first word: the passages are cut (below PROMPT_TOKEN_BUDGET) to what it reads in this time at the rate it read its earlier prompts in this process, so the first word comes on time on a slow or busy host. The first answer after loading uses PROMPT_TOKEN_BUDGET alone, as does a target longer than the budget takes to read (e.g. 600000).',
  },
  {
    name: 'LLM_EVIDENCE',
    kind: 'enum',
    values: ['chosen', 'retrieved'],
    default: 'chosen',
    description:
      'Passages the local generative model answers from. `chosen`: those the extractive answerer cites (with the other retrieved chunks of their pages); where it declines, the answer is the not-found answer without a model call (the 1.5B model does not decline by itself). `retrieved`: every retrieved passage within PROMPT_TOKEN_BUDGET, declining left to the model.',
  },
  {
    name: 'LLM_OPENING_CHECK',
    kind: 'bool',
    default: 'true',
    description:
      "With LLM_EVIDENCE=chosen, the first six words of a local model answer (not a list or compare answer) are held before streaming; when they use none of the question's words while the extractive answer from the same passages does, that extractive answer is given instead and the model is stopped (the 1.5B model often restates a passage's first line instead of the line that answers). Costs about a second of first delta. `false` streams the model's answer from its first word.",
  },
  {
    name: 'LOCAL_EMBEDDER',
    kind: 'enum',
    values: ['auto', 'minilm', 'bge-small', 'hashing'],
    default: 'auto',
    description:
      'Embedder when COHERE_API_KEY is unset. `minilm`: the semantic all-MiniLM-L6-v2 model (`npm run models:install -- embedder`). `bge-small`: the semantic bge-small-en-v1.5 model (`npm run models:install -- bge-small`; queries get its retrieval instruction). Both refuse to start without their model. `hashing`: the lexical hashing embedder (no model). `auto`: the default model (docs/models.md) when installed, else the other installed one, else hashing with a warning in the log and /version. Set it explicitly when api and worker run as separate processes. Changing the embedder starts a new index version: run `npm run cli -- reembed` (docs/models.md).',
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
      'Batches the local embedding model embeds at once (1-64), each in its own inference thread with its own onnxruntime session. The embedder uses LOCAL_EMBEDDER_SESSIONS x LOCAL_EMBEDDER_THREADS CPU threads: 2 x 1 embedded 1.2x the chunks per second of 1 x 2 on 2 cores (docs/benchmarks/embedder.md).',
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
      'Run the CPU-heavy background threads at a lower CPU priority (nice 10): the local embedder (its inference thread and onnxruntime threads) and the PDF extraction threads. They then yield the cores to the event loop that answers requests, so asks and progress reads stay fast while documents are indexed, and use every idle cycle otherwise (docs/adr/0036).',
  },
  {
    name: 'LOCAL_EMBEDDER_BATCH_SIZE',
    kind: 'int',
    default: '2',
    description:
      'Chunks per local embedding model inference (1-256). 2 was the fastest on 2 cores with the fused-attention graph (1.06x batch 8 on 256-token chunks, 1.11x on real chunks; the same in the indexing pipeline), and a query waits behind a smaller batch (docs/benchmarks/embedder.md).',
  },
  {
    name: 'LOCAL_EMBEDDER_PRECISION',
    kind: 'enum',
    values: ['auto', 'fp32', 'int8'],
    default: 'auto',
    description:
      'Graph of the local embedding model: `int8` (int8 weights, integer GEMMs: about 2x faster, retrieval quality within 0.005 nDCG@10 of fp32) or `fp32`. `auto`: int8 where the CPU has integer dot-product instructions (AVX-512 VNNI, AVX-VNNI, AMX, Arm dot product), else fp32 (docs/benchmarks/embedder.md). int8 is its own embedding space (e.g. `all-MiniLM-L6-v2-int8`): switching re-embeds (`npm run cli -- reembed`, docs/models.md).',
  },
  {
    name: 'SSE_KEEPALIVE_MS',
    kind: 'int',
    default: '10000',
    description: 'Interval of keep-alive comments on streamed answers (Server-Sent Events), in milliseconds.',
  },
  {
    name: 'SMTP_URL',
    kind: 'url',
    secret: true,
    description: 'smtp:// or smtps:// URL for support e-mail. Unset: support e-mail answers 503.',
  },
  {
    name: 'MAIL_FROM',
    kind: 'string',
    default: 'DocQA <no-reply@docqa.invalid>',
    description:
      'From address of support e-mail (the requester goes into Reply-To). Use an address your SMTP relay may send as.',
  },
  {
    name: 'MAIL_OUTBOX_POLL_MS',
    kind: 'int',
    default: '2000',
    description:
      'How often each api process polls the mail outbox for messages due for delivery, in milliseconds.',
  },
  {
    name: 'MAIL_RETRY_BASE_MS',
    kind: 'int',
    default: '5000',
    description:
      'First retry delay of a support e-mail that SMTP did not accept; doubles on each attempt up to MAIL_RETRY_MAX_MS.',
  },
  {
    name: 'MAIL_RETRY_MAX_MS',
    kind: 'int',
    default: '900000',
    description: 'Longest delay between delivery attempts of one support e-mail, in milliseconds.',
  },
  {
    name: 'CHATBOT_FILE_LINK_TTL_SECONDS',
    kind: 'int',
    default: '86400',
    description: 'Lifetime of the signed file links in chatbot citations (`source`), in seconds.',
  },
  {
    name: 'GRAPH_BASE_URL',
    kind: 'url',
    description: 'Microsoft Graph base URL override. Unset: https://graph.microsoft.com/v1.0.',
  },
  {
    name: 'MS_AUTHORITY_HOST',
    kind: 'url',
    description: 'Microsoft identity authority host override. Unset: https://login.microsoftonline.com.',
  },
  {
    name: 'GOOGLE_API_ROOT_URL',
    kind: 'url',
    description: 'Google APIs root URL override. Unset: https://www.googleapis.com/.',
  },
  {
    name: 'GOOGLE_TOKEN_URL',
    kind: 'url',
    description: 'Google OAuth token endpoint override. Unset: https://oauth2.googleapis.com/token.',
  },
  {
    name: 'SOURCE_CA_FILE',
    kind: 'string',
    description:
      'PEM file of extra certificate authorities trusted for SharePoint and Google Drive connections (a TLS-inspecting proxy or a private endpoint). Unset: the system roots only.',
  },
  {
    name: 'SOURCE_REQUEST_TIMEOUT_MS',
    kind: 'int',
    default: '60000',
    description:
      'Time limit of one request to SharePoint or Google Drive (a download: with no byte received). A source that stops answering fails the call after it; the indexing run retries, then fails with the reason.',
  },
  {
    name: 'METRICS_ENABLED',
    kind: 'bool',
    default: 'true',
    description:
      'Serve Prometheus metrics (`GET /metrics`, plus `GET /health/live`) on METRICS_PORT in the api and the worker.',
  },
  {
    name: 'METRICS_PORT',
    kind: 'port',
    default: '9464',
    description: 'Port of the plain-HTTP Prometheus endpoint (on METRICS_HOST). 0 picks a free port (tests).',
  },
  {
    name: 'EVENT_LOOP_STALL_WARN_MS',
    kind: 'int',
    default: '1000',
    description:
      'Log a warning ("event loop stalled") whenever a process of the service answered nothing (no request, heartbeat or log line) for longer than this, with how much of that span its own code held the loop (busy near 1: a long synchronous call in the process; near 0: the cores were taken by others). 0 turns the watch off.',
  },
  {
    name: 'METRICS_HOST',
    kind: 'string',
    default: '127.0.0.1',
    description:
      'Address the Prometheus endpoint binds to. Default loopback: only this machine can scrape it (plain HTTP, no credential). Set it (e.g. 0.0.0.0 or an internal interface address) only where the port is reachable from the internal network alone.',
  },
  {
    name: 'MAX_BODY_BYTES',
    kind: 'int',
    default: '1048576',
    description: 'Largest accepted JSON request body; larger gets 413.',
  },
  {
    name: 'REQUIRE_TERMS_OF_SERVICE',
    kind: 'bool',
    default: 'false',
    description: 'Require user.terms_of_service=true at registration.',
  },
  {
    name: 'GIT_COMMIT',
    kind: 'string',
    description: 'Commit reported by /version. Unset: read from .git when present.',
  },
] as const satisfies readonly ConfigVariable[];

export type ConfigName = (typeof CONFIG_VARIABLES)[number]['name'];
