import { analyseQuery, type QueryAnalysis } from '@docqa/text';

/**
 * Ports of the language models behind /ask and /summary. Each is a token plus an interface; AnswersModule
 * binds them from the configuration: Cohere when COHERE_API_KEY is set, else the local provider.
 */
export const GENERATOR = Symbol('GENERATOR');
export const REWRITER = Symbol('REWRITER');
export const TITLER = Symbol('TITLER');
/** Bound to a Reranker, or to null when no reranker is configured. */
export const RERANKER = Symbol('RERANKER');
/** The local extractive generator, always available (the `config.model` value `local`). */
export const LOCAL_GENERATOR = Symbol('LOCAL_GENERATOR');
/**
 * Every generator `config.model` may pick: the extractive one, the local generative model (also
 * when its file is missing: it then answers 503), and the configured remote providers.
 */
export const GENERATORS = Symbol('GENERATORS');

/** `config.model` of the local generative model (node-llama-cpp, LLM_MODEL_PATH). */
export const LOCAL_LLM_MODEL = 'local-llm';
/** `config.model` of the OpenAI-compatible provider (its model is OPENAI_MODEL). */
export const OPENAI_MODEL_ALIAS = 'openai';

export type ChatRole = 'user' | 'assistant';

export interface ChatTurn {
  role: ChatRole;
  content: string;
}

/** One model call, for the usage report of an answer. */
export interface ModelCall {
  model: string;
  inputTokens: number;
  outputTokens: number;
}

/** A retrieved chunk handed to a generator. `n` is the number its markers use: `[n]`. */
export interface Passage {
  n: number;
  fileName: string;
  pageNumber: string;
  text: string;
  /**
   * The passage's document context: title, section and identifying terms (names, identifiers,
   * date tokens). Tells near-identical documents apart; not quoted, not cited by itself.
   */
  context?: string;
  /** The document's title (part of `context`): the words that name the document itself. */
  title?: string;
  /**
   * The section heading(s) the passage falls under; a financial statement's pages lead with the
   * statement's plain name (libs/text statements.ts).
   */
  section?: string;
}

export interface GenerateInput {
  /** The question as the caller asked it. */
  question: string;
  /** The standalone search query (the question itself when the rewriter was skipped). */
  query: string;
  /** Earlier turns, oldest first. */
  history: ChatTurn[];
  /** Extra system context from the caller. */
  promptContext?: string;
  /** Best first. */
  passages: Passage[];
  /** Model name from the generator's `models`; default `defaultModel`. */
  model?: string;
  /**
   * The ask's analysis of the question and query (analyseQuery in libs/text), made once per ask;
   * its question and query are the two above. Callers that build an input themselves may leave it
   * out: the generator then analyses them once itself (analysisOf).
   */
  analysis?: QueryAnalysis;
  /**
   * Whether the caller streams the answer (default true). False lets a provider answer in one call
   * (Cohere: chat instead of chatStream, so markers sit at exact offsets).
   */
  stream?: boolean;
  signal?: AbortSignal;
}

/** The input's analysis, or one made from its question and query when the caller gave none. */
export function analysisOf(input: Pick<GenerateInput, 'question' | 'query' | 'analysis'>): QueryAnalysis {
  return input.analysis ?? analyseQuery(input.question, input.query);
}

/**
 * What a generator streams: answer text carrying `[n]` markers that refer to `Passage.n` (never
 * any other bracketed number), then one `usage` per model call it made.
 */
export type GenerationEvent = { type: 'text'; text: string } | { type: 'usage'; call: ModelCall };

export interface Generator {
  /** `local` is the extractive answerer (no model). */
  readonly provider: 'local' | 'cohere' | 'openai' | 'local-llm';
  /** Model names this generator accepts in `GenerateInput.model`. */
  readonly models: readonly string[];
  readonly defaultModel: string;
  /**
   * Throws a DomainError (503 CAPABILITY_DISABLED) when the generator cannot answer at all, e.g. its
   * model file is not installed. Called before an answer starts, so the caller gets a JSON error.
   */
  assertAvailable?(): void;
  /**
   * Whether the generator answers only where the extractive answerer would (local-llm with
   * LLM_EVIDENCE=chosen), so the ask pipeline applies the extractive answerer's topic check to it
   * too. True for the extractive answerer itself.
   */
  readonly choosesExtractively?: boolean;
  generate(input: GenerateInput): AsyncIterable<GenerationEvent>;
}

export interface RewriteInput {
  question: string;
  history: ChatTurn[];
  promptContext?: string;
  signal?: AbortSignal;
}

export interface RewriteResult {
  /** One standalone search query. */
  query: string;
  call?: ModelCall;
}

/** Turns a question with its conversation into one standalone search query. */
export interface Rewriter {
  readonly model: string;
  rewrite(input: RewriteInput): Promise<RewriteResult>;
}

export interface TitleInput {
  messages: ChatTurn[];
  signal?: AbortSignal;
}

export interface TitleResult {
  title: string;
  call?: ModelCall;
}

/** A short descriptive title for a conversation. */
export interface Titler {
  readonly model: string;
  title(input: TitleInput): Promise<TitleResult>;
}

export interface RerankInput {
  query: string;
  /** The ask's analysis, of this query (optional: a reranker that needs it analyses the query itself). */
  analysis?: QueryAnalysis;
  /** The candidates in the order search ranked them, best first. */
  documents: string[];
  /** Each candidate's section as indexing wrote it (a statement page's starts with its label). */
  sections?: ReadonlyArray<string | undefined>;
  /** How many results to return, best first. */
  topN: number;
  signal?: AbortSignal;
}

export interface RerankResult {
  /** `index` into the input documents, best first; `score` in 0..1. */
  results: Array<{ index: number; score: number }>;
  call?: ModelCall;
}

export interface Reranker {
  readonly model: string;
  rerank(input: RerankInput): Promise<RerankResult>;
}

/** A rough token count (about four characters a token) for providers that report none. */
export function estimateTokens(text: string): number {
  const t = text.trim();
  return t ? Math.max(1, Math.round(t.length / 4)) : 0;
}

/** What an answer says, without citations, when the documents do not cover the question. */
export const NO_ANSWER_TEXT =
  'I could not find an answer to this question in the selected documents, so I will not guess.';

/** Model names of the local provider (also the `config.model` value that selects it). */
export const LOCAL_MODELS = {
  generator: 'local',
  rewriter: 'local-rewriter',
  titler: 'local-titler',
  reranker: 'local-reranker',
} as const;
