import type { ChatTurn } from '@docqa/answers';

/** Bounds and defaults of /ask (and /summary) input; the DTOs and docs/ask.md use these. */
export const ASK_LIMITS = {
  questionMaxChars: 4000,
  docSetNamesMax: 20,
  pastMessagesMax: 50,
  messageMaxChars: 20000,
  promptContextMaxChars: 4000,
  retrievalLimit: { min: 1, max: 50, default: 8 },
  minimumSimilarityScore: { min: 0, max: 1, default: 0 },
} as const;

/**
 * Who asks, decided at the edge and never by the pipeline: the account every query is scoped to
 * and the docsets it may ask (null: any docset of the account). The Document API builds it from
 * the API token (apps/api), the chatbot from its key and the account's widget settings.
 */
export interface AskScope {
  accountId: number;
  allowedDocSetNames: readonly string[] | null;
  /**
   * The account's served docsets, when the edge has just read them for this request (the chatbot
   * builds its allowed docsets from that list): the docset check uses them instead of reading the
   * catalog again.
   */
  servedDocSetNames?: readonly string[];
}

/** A validated /ask request. */
export interface AskCommand {
  question: string;
  docSetNames: string[];
  pastMessages: ChatTurn[];
  promptContext?: string;
  retrievalLimit: number;
  minimumSimilarityScore: number;
  /** From the allow-list (`allowedAskModels()`); undefined: the configured provider's default. */
  model?: string;
  /** The caller wants Server-Sent Events. */
  stream: boolean;
}

/** Where a passage comes from, as citations and /search results show it. */
export interface PassageSource {
  fileName: string;
  /** 1-based physical page, as a string. */
  pageNumber: string;
  sourceType: string;
  sourceMetadata: { sourceId: string; documentId: string; docSetName: string };
}

/** Spec "Citation (Document API answer)". */
export interface Citation extends PassageSource {
  /** Matches the inline marker `[index]` in the answer. */
  index: number;
}

export interface ModelUsage {
  model: string;
  inputTokens: number;
  outputTokens: number;
  calls: number;
}

/** Spec "Usage (Document API answer)"; `perModel` in order of each model's first call. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  calls: number;
  perModel: ModelUsage[];
}

export interface AskResult {
  answer: string;
  citations: Citation[];
  usage: Usage;
}

/**
 * What /ask streams, in this order: `delta` events whose texts concatenate to the answer, one
 * `citations` event, one `done` event with the usage (and the whole answer). A failure after the
 * stream started ends it with one `error` event instead.
 */
export type AskEvent =
  | { type: 'delta'; text: string }
  | { type: 'citations'; citations: Citation[] }
  | { type: 'done'; answer: string; usage: Usage }
  | { type: 'error'; errorCode: string; message: string };
