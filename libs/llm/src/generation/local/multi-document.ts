import type { QuestionScope } from '../../analysis/question-scope';
import type { Candidate } from './local.generator';
import { escapeMarkers } from './text';

/**
 * List and compare answers of the extractive answerer, one sentence per document, each with its
 * own citation, so every document the answer draws on is cited. Documents are told apart by how
 * much of the question their context holds (`named`: the places, dates, names it mentions):
 * a comparison is about the two documents the question names most; a list about the documents
 * it names clearly more than the others ("Which accidents happened on December 8, 2007?"), or,
 * when it names none ("Which of the accidents were fatal?"), about every document whose best
 * sentence scores close to the best one.
 */
export const SEVERAL_DOCUMENTS = {
  /** Without named documents, a list includes a document whose best sentence scores this share of the best. */
  listShare: 0.6,
  /** Named documents: those whose document match is at least this share of the best match. */
  namedShare: 0.9,
  /** Most documents in a list answer. */
  maxDocuments: 6,
};

/**
 * The answer text, or undefined when fewer than two documents qualify (answered as one).
 * `covers` weighs the query terms a set of context stems holds.
 */
export function composeSeveral(
  scope: Exclude<QuestionScope, 'single'>,
  ranked: readonly Candidate[],
  maxChars: number,
  covers: (stems: Iterable<string>) => number,
  o: typeof SEVERAL_DOCUMENTS = SEVERAL_DOCUMENTS,
): string | undefined {
  // Each document's best sentence (ranked is best first). A document the question names may have
  // no sentence matching the rest of the question, and a comparison is still about it.
  const bestOf = new Map<string, Candidate>();
  for (const c of ranked) if (!bestOf.has(c.passage.fileName)) bestOf.set(c.passage.fileName, c);
  const all = [...bestOf.values()];
  const documents = all.filter((d) => d.score > 0);
  if (documents.length === 0 || all.length < 2) return undefined;
  const top = documents[0].score;
  const maxNamed = Math.max(...documents.map((d) => d.named));
  const named = documents.filter((d) => maxNamed > 0 && d.named >= o.namedShare * maxNamed);
  let picked: Candidate[];
  if (scope === 'compare') {
    // The two documents that together hold most of what the question names: each names its own
    // half ("the pilot in A or the pilot in B"), so a document sharing the first one's terms adds little.
    const pool = [...all].sort((a, b) => b.named - a.named || b.score - a.score).slice(0, 6);
    let best = -1;
    picked = [];
    for (let i = 0; i < pool.length; i++) {
      for (let j = i + 1; j < pool.length; j++) {
        const key =
          covers(new Set([...pool[i].context, ...pool[j].context])) + 1e-6 * (pool[i].score + pool[j].score);
        if (key > best) {
          best = key;
          picked = [pool[i], pool[j]].sort((a, b) => b.score - a.score);
        }
      }
    }
  } else if (named.length >= 2 && named.length < documents.length) {
    picked = named.slice(0, o.maxDocuments);
  } else {
    picked = documents.filter((d) => d.score >= o.listShare * top).slice(0, o.maxDocuments);
  }
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
