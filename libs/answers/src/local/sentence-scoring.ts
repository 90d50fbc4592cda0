import type { Passage } from '../generation.port';
import { derivedForms, isFiscalYearTerm, STOP_WORDS, words } from '@docqa/text';

/** Weight of scope terms relative to the other query terms. */
const SCOPE_WEIGHT = 0.3;
/** Weight of terms the rewriter brought in from the conversation (the question's own weigh 1). */
const HISTORY_WEIGHT = 0.5;

/** Title or affiliation lines: mostly capitalised words and almost no function words. */
export function headingLike(text: string): boolean {
  const toks = text.match(/[A-Za-z][\w'’]*/g) ?? [];
  if (toks.length < 4) return false;
  const caps = toks.filter((t) => /^[A-Z]/.test(t)).length;
  const stops = toks.filter((t) => STOP_WORDS.has(t.toLowerCase())).length;
  return caps / toks.length > 0.55 && stops / toks.length < 0.2;
}

/**
 * Prose has a quarter or more function words; an index or a table of contents has almost none,
 * and matches many query words without answering anything.
 */
export function proseFactor(text: string): number {
  const ws = words(text);
  if (ws.length === 0) return 1;
  const r = ws.filter((w) => STOP_WORDS.has(w)).length / ws.length;
  return r >= 0.25 ? 1 : 0.4 + (r / 0.25) * 0.6;
}

export interface Candidate {
  passage: Passage;
  rank: number;
  index: number;
  text: string;
  /** A table row quoted with its header's periods (the answer quotes this instead of `text`). */
  quote?: string;
  stems: readonly string[];
  /** Stems of the passage's document context (shared by its sentences). */
  context: Set<string>;
  /** Stems of the passage's document title (part of the context). */
  titleStems: Set<string>;
  /** Query weight the document context holds (times contextWeight): how much the question names its document. */
  named: number;
  score: number;
}

/** Query terms with their weights: rarer among the passages' sentences = heavier. */
export interface WeightedQuery {
  /** Every query term, and every other form of one the passages use, with that term's weight. */
  terms: Map<string, number>;
  /** Sum of the query terms' weights (each term once, whatever its forms). */
  total: number;
  /** The query terms, in order. */
  order: string[];
  /** The query term each key of `terms` is a form of (a query term is its own). */
  termOf: Map<string, string>;
}

/**
 * Weighs `query` (its terms in order, QueryAnalysis.terms) by how rare each is among the candidates'
 * sentences; scope terms weigh less, and so do terms not `asked` (brought in by the rewriter).
 */
export function weighQuery(
  query: readonly string[],
  candidates: Candidate[],
  scope: ReadonlySet<string>,
  asked: ReadonlySet<string>,
): WeightedQuery {
  const order = [...query];
  // Other forms of the query terms that the passages use (`departure` for "depart"): they match
  // as the term itself, counted once with it.
  const termOf = new Map<string, string>(order.map((t) => [t, t]));
  const used = new Set<string>();
  const contexts = new Set<Set<string>>(); // one per passage, shared by its sentences
  for (const c of candidates) {
    for (const s of c.stems) used.add(s);
    contexts.add(c.context);
  }
  for (const context of contexts) for (const s of context) used.add(s);
  for (const s of used) {
    if (termOf.has(s)) continue;
    const t = order.find((t) => derivedForms(t, s));
    if (t) termOf.set(s, t);
  }
  const df = new Map<string, number>(order.map((t) => [t, 0]));
  for (const c of candidates) {
    for (const t of termsIn(termOf, [...c.stems, ...c.context])) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const n = candidates.length;
  const terms = new Map<string, number>();
  let total = 0;
  for (const t of order) {
    const w =
      Math.log(1 + (n + 1) / ((df.get(t) ?? 0) + 0.5)) *
      (scope.has(t) ? SCOPE_WEIGHT : 1) *
      (asked.has(t) ? 1 : HISTORY_WEIGHT);
    terms.set(t, w);
    total += w;
  }
  for (const [form, t] of termOf) if (form !== t) terms.set(form, terms.get(t) ?? 0);
  return { terms, total, order, termOf };
}

/** The query terms that some of `stems` are forms of. */
function termsIn(termOf: Map<string, string>, stems: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const s of stems) {
    const t = termOf.get(s);
    if (t !== undefined) out.add(t);
  }
  return out;
}

export function covered(q: WeightedQuery, stems: readonly string[]): number {
  let sum = 0;
  for (const t of termsIn(q.termOf, stems)) sum += q.terms.get(t) ?? 0;
  return sum;
}

/**
 * What a sentence itself says: its stems that its document context does not hold. A table row's
 * label is what the row says however often its words name the row's section or run through the
 * document (`TOTAL ASSETS` under `CURRENT ASSETS` in a filing whose rows all start `Total`): a row
 * gives up only the words of its document's title.
 */
export function ownStems(c: Candidate): readonly string[] {
  const named = c.quote ? c.titleStems : c.context;
  return named.size ? c.stems.filter((s) => !named.has(s)) : c.stems;
}

/**
 * What a sentence says about the question: the query terms it holds, bigrams kept in order, less
 * for long sentences. Terms its document context holds (the document's name, identifiers, the
 * section) say which document it is from, not what it answers: they are scored once for every
 * sentence of the passage (CONTEXT_WEIGHT), never as the sentence's content, so a header line
 * repeating a report's registration does not outscore the line that answers.
 */
export function scoreSentence(q: WeightedQuery, c: Candidate): number {
  if (c.stems.length === 0) return 0;
  const matched = covered(q, ownStems(c));
  if (matched === 0) return 0;
  let bigrams = 0;
  for (let i = 0; i + 1 < q.order.length; i++) {
    const a = q.order[i];
    const b = q.order[i + 1];
    if (c.context.has(a) && c.context.has(b)) continue;
    for (let j = 0; j + 1 < c.stems.length; j++) {
      if (q.termOf.get(c.stems[j]) === a && q.termOf.get(c.stems[j + 1]) === b) {
        bigrams += Math.min(q.terms.get(a) ?? 0, q.terms.get(b) ?? 0);
        break;
      }
    }
  }
  const lengthPenalty = 1 + 0.25 * Math.max(0, c.stems.length / 25 - 1);
  return (matched + 0.5 * bigrams) / lengthPenalty;
}

/**
 * Whether a document context (its stems) is a filing of another fiscal year than those a question
 * names (`fy2021` terms; none named: never). A document that states no fiscal year (no filing) is not.
 */
export function ofOtherYear(context: ReadonlySet<string>, years: readonly string[]): boolean {
  if (years.length === 0 || years.some((y) => context.has(y))) return false;
  for (const s of context) if (isFiscalYearTerm(s)) return true;
  return false;
}

/**
 * The candidates (best first) of documents of the fiscal years the question names, when one of
 * them says something besides its names: a filing of another year of the same company prints the
 * same captions and many of the same figures, so its sentences can match as well or better, but
 * they answer for another period.
 */
export function fromNamedPeriods(ranked: Candidate[], otherYear: (p: Passage) => boolean): Candidate[] {
  if (!ranked.some((c) => !otherYear(c.passage) && c.score > c.named)) return ranked;
  return ranked.filter((c) => !otherYear(c.passage));
}

/**
 * The candidates (best first) the answer may use: when the best sentence's document is one the
 * question does not name while a named one says something of the question besides its name, only
 * the sentences of named documents; otherwise all of them. A question names a document by the
 * words of its title (which holds the file name's words), not by its section headings: "Can gp
 * draw surface plots?" names the PARI/GP tutorial, not another manual whose section is "Plotting
 * functions". A passage given without a title is named by its context.
 */
export function fromNamedDocuments(ranked: Candidate[], q: WeightedQuery): Candidate[] {
  const titled = new Map<Set<string>, boolean>(); // one title set per passage, shared by its sentences
  const named = (c: Candidate) => {
    if (!c.passage.title) return c.named > 0; // no title known: the context names it
    let t = titled.get(c.titleStems);
    if (t === undefined) titled.set(c.titleStems, (t = covered(q, [...c.titleStems]) > 0));
    return t;
  };
  if (!ranked[0] || named(ranked[0])) return ranked;
  const fromNamed = ranked.filter((c) => named(c) && c.score > c.named);
  return fromNamed.length ? fromNamed : ranked;
}
