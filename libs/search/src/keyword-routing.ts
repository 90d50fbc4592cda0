/** Keyword routing word cap (spec: Limits, `maxWords`). */
export const KEYWORD_ROUTING_MAX_WORDS = 5;

export const KEYWORD_ROUTING_RULE =
  `The rewriter is skipped when the query is 1 to ${KEYWORD_ROUTING_MAX_WORDS} words, has no punctuation, ` +
  'and there is no conversation history and no promptContext; otherwise the query is first rewritten ' +
  'into a standalone search query.';

export interface KeywordRoutingContext {
  hasHistory: boolean;
  hasPromptContext: boolean;
}

export interface KeywordRoutingEvaluation {
  /** The query as it would be searched: trimmed, runs of whitespace collapsed to one space. */
  query: string;
  skipsRewriter: boolean;
  maxWords: number;
  rule: string;
}

/** Unicode punctuation (general category P: `?`, `.`, `,`, `'`, `-`, `«`, `。`, ...). */
const PUNCTUATION = /\p{P}/u;

/** Words are runs of non-whitespace; Unicode whitespace counts as a separator. */
export function keywordWords(q: string): string[] {
  return q.split(/\s+/u).filter(Boolean);
}

/** Pure: decides whether a question is searched as typed (keywords) or rewritten first. */
export function evaluateKeywordRouting(q: string, ctx: KeywordRoutingContext): KeywordRoutingEvaluation {
  const words = keywordWords(q);
  const query = words.join(' ');
  const skipsRewriter =
    words.length >= 1 &&
    words.length <= KEYWORD_ROUTING_MAX_WORDS &&
    !PUNCTUATION.test(query) &&
    !ctx.hasHistory &&
    !ctx.hasPromptContext;
  return { query, skipsRewriter, maxWords: KEYWORD_ROUTING_MAX_WORDS, rule: KEYWORD_ROUTING_RULE };
}
