import { dateMentions, type QuestionScope } from '@docqa/text';
import type { Candidate } from './local.generator';
import { escapeMarkers } from './text';

/**
 * List and compare answers of the extractive answerer, one sentence per document, each with its
 * own citation, so every document the answer draws on is cited. Documents are told apart by how
 * much of the question their context holds (`named`: the places, dates, names it mentions):
 * a comparison is about the two documents the question names most; a list about the documents
 * it names clearly more than the others ("Which invoices are dated March 3, 2024?"), or,
 * when it names none ("Which of the contracts were renewed?"), about every document whose best
 * sentence says close to as much of the question as the best one does, unless that sentence
 * states the asked field as absent (`Renewed: No`). A trend question ("How has X changed over
 * time?") is about every document it names clearly, one sentence each, earliest period first.
 */
export const SEVERAL_DOCUMENTS = {
  /**
   * Without named documents, a list includes a document whose best sentence holds this share of
   * the query weight (its own words, not its document's context) that the most telling one holds.
   */
  listShare: 0.6,
  /** Named documents: those whose document match is at least this share of the best match. */
  namedShare: 0.9,
  /** Most documents in a list answer. */
  maxDocuments: 6,
};

/** How the answerer reads a sentence against the question, for list and compare answers. */
export interface SentenceJudge {
  /** The query weight a set of stems holds. */
  covers: (stems: Iterable<string>) => number;
  /** The query weight a sentence's own words hold (not its document's context). */
  says: (c: Candidate) => number;
  /** Whether the sentence states a field the question asks about as absent (`Amateur Built: No`). */
  denies: (c: Candidate) => boolean;
}

/** The answer text, or undefined when fewer than two documents qualify (answered as one). */
export function composeSeveral(
  scope: Exclude<QuestionScope, 'single'>,
  ranked: readonly Candidate[],
  maxChars: number,
  judge: SentenceJudge,
  o: typeof SEVERAL_DOCUMENTS = SEVERAL_DOCUMENTS,
): string | undefined {
  const { covers } = judge;
  // Each document's best sentence (ranked is best first). A document the question names may have
  // no sentence matching the rest of the question, and a comparison is still about it.
  const bestOf = new Map<string, Candidate>();
  for (const c of ranked) if (!bestOf.has(c.passage.fileName)) bestOf.set(c.passage.fileName, c);
  const all = [...bestOf.values()];
  const documents = all.filter((d) => d.score > 0);
  if (documents.length === 0 || all.length < 2) return undefined;
  // A document with a sentence saying the asked field is `No` does not have it, whatever else it
  // says or its context names: it is never listed.
  const denying = new Set(ranked.filter((c) => judge.denies(c)).map((c) => c.passage.fileName));
  const stating = documents.filter((d) => !denying.has(d.passage.fileName));
  const maxNamed = Math.max(...documents.map((d) => d.named));
  const named = stating.filter((d) => maxNamed > 0 && d.named >= o.namedShare * maxNamed);
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
  } else if (scope === 'trend') {
    // One statement per document the question names (each report of the company it names, one per
    // period). Naming fewer than two, it is a question about one document: answered as one.
    picked = named.slice(0, o.maxDocuments);
  } else if (named.length >= 2 && named.length < stating.length) {
    picked = named.slice(0, o.maxDocuments);
  } else {
    // Which documents have the asked property is a matter of what their sentences say, not of the
    // priors that pick the one best sentence (rank, prose, length): a form line `Amateur Built: Yes`
    // says as much as a narrative sentence.
    const most = Math.max(0, ...stating.map((d) => judge.says(d)));
    picked = stating.filter((d) => most > 0 && judge.says(d) >= o.listShare * most).slice(0, o.maxDocuments);
  }
  if (picked.length < 2) return undefined;
  if (scope === 'trend') picked = inTimeOrder(picked);
  const parts: string[] = [];
  let length = 0;
  for (const c of picked) {
    const sentence = escapeMarkers(c.quote ?? c.text);
    // Every picked document is cited: a long list shortens sentences rather than drop documents.
    const room = Math.max(120, Math.floor((maxChars * 1.5) / picked.length));
    parts.push(`${sentence.length > room ? `${sentence.slice(0, room - 1)}…` : sentence} [${c.passage.n}]`);
    length += Math.min(sentence.length, room);
  }
  return length ? parts.join(' ') : undefined;
}

/**
 * A trend answer reads from the earliest period to the latest when every sentence states a date:
 * each by the latest date it mentions (a report's sentence compares its own period with earlier
 * ones). Otherwise the order stays best first.
 */
function inTimeOrder(picked: Candidate[]): Candidate[] {
  const latest = (c: Candidate) => {
    const days = dateMentions(c.text).map((tokens) => tokens[0].padEnd(8, '0'));
    return days.length ? days.sort().at(-1)! : undefined;
  };
  const keyed = picked.map((c) => ({ c, at: latest(c) }));
  if (keyed.some((k) => k.at === undefined)) return picked;
  return keyed.sort((a, b) => a.at!.localeCompare(b.at!)).map((k) => k.c);
}
