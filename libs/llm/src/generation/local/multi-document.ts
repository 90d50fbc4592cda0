import type { QuestionScope } from '../question-scope';
import type { Candidate } from './local.generator';
import { escapeMarkers } from './text';

/**
 * List and compare answers of the extractive answerer. A list question ("Which of the accidents
 * were fatal?") is answered by every document whose best sentence scores close to the best one;
 * a comparison by the best sentence of each of the two best documents. One sentence per document,
 * each with its own citation, so every document the answer draws on is cited.
 */
export const SEVERAL_DOCUMENTS = {
  /** A list includes a document whose best sentence scores at least this share of the best. */
  listShare: 0.6,
  /** A comparison needs its second document's best sentence at this share of the best. */
  compareShare: 0.4,
  /** Most documents in a list answer. */
  maxDocuments: 6,
};

/** The answer text, or undefined when fewer than two documents qualify (answered as one). */
export function composeSeveral(
  scope: Exclude<QuestionScope, 'single'>,
  ranked: readonly Candidate[],
  maxChars: number,
  o: typeof SEVERAL_DOCUMENTS = SEVERAL_DOCUMENTS,
): string | undefined {
  const bestOf = new Map<string, Candidate>();
  for (const c of ranked)
    if (c.score > 0 && !bestOf.has(c.passage.fileName)) bestOf.set(c.passage.fileName, c);
  const documents = [...bestOf.values()];
  if (documents.length < 2) return undefined;
  const top = documents[0].score;
  const picked =
    scope === 'compare'
      ? documents.slice(0, 2).filter((d) => d.score >= o.compareShare * top)
      : documents.filter((d) => d.score >= o.listShare * top).slice(0, o.maxDocuments);
  if (picked.length < 2) return undefined;
  const parts: string[] = [];
  let length = 0;
  for (const c of picked) {
    const sentence = escapeMarkers(c.text);
    // Every picked document is cited: a long list shortens sentences rather than drop documents.
    const room = Math.max(120, Math.floor((maxChars * 1.5) / picked.length));
    parts.push(`${sentence.length > room ? `${sentence.slice(0, room - 1)}…` : sentence} [${c.passage.n}]`);
    length += Math.min(sentence.length, room);
  }
  return length ? parts.join(' ') : undefined;
}
