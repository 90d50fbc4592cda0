import { contentStems, dateTokens, identifierTokens } from '@docqa/text';

/**
 * What the extractive answerer knows of a passage's document. Twenty reports of one template
 * state "Flight Time: 2319 hours" alike; only the document's context (title, identifying terms
 * such as place, registration and date, section) tells which report a sentence is from. The
 * answerer scores a sentence by the query terms it holds plus, with CONTEXT_WEIGHT, those its
 * document's context holds; dates count as day and month tokens on both sides.
 */
export const CONTEXT_WEIGHT = 1;

/** The terms of a text as the extractive answerer matches them: content stems, date tokens, compound identifiers. */
export function textTerms(text: string): string[] {
  return [...contentStems(text), ...dateTokens(text), ...identifierTokens(text)];
}
