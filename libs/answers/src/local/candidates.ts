import type { Passage } from '../generation.port';
import { type LineItemAsked, lineItemOfRow } from '@docqa/text';
import { type PassageSegment, passageSegments, passageTitle } from './passage-analysis';
import { endsSentence, startsMidSentence } from './segments';
import type { Candidate } from './sentence-scoring';

/**
 * The candidate answers of the passages: each sentence or table row (a row with its quote), in
 * passage order, with the stems it says and its document's context; `segmentsOf` lists each
 * passage's own, in order (a candidate's `index` is its place there). Sentences a chunk cut off
 * and another passage holds whole are left out.
 */
export function candidatesOf(
  passages: readonly Passage[],
  contextOf: ReadonlyMap<Passage, Set<string>>,
  lineItems: readonly LineItemAsked[],
): { candidates: Candidate[]; segmentsOf: Map<Passage, Candidate[]> } {
  const candidates: Candidate[] = [];
  const segmentsOf = new Map<Passage, Candidate[]>();
  passages.forEach((passage, rank) => {
    const context = contextOf.get(passage) ?? new Set<string>();
    const titleStems = passageTitle(passage);
    const own: Candidate[] = passageSegments(passage.text).map((s, index) => ({
      passage,
      rank,
      index,
      text: s.text,
      quote: s.quote,
      stems: withItemStems(s, lineItems),
      context,
      titleStems,
      named: 0,
      score: 0,
    }));
    segmentsOf.set(passage, own);
    candidates.push(...own);
  });
  dropCutSentences(candidates, segmentsOf);
  return { candidates, segmentsOf };
}

/**
 * Consecutive chunks of a page overlap, so a passage whose chunk cuts its last sentence off, or
 * starts in the middle of its first, often comes with the passage that holds that sentence whole.
 * The cut-off copy is dropped (in place, from both lists): it says less than the whole and would
 * otherwise compete with it, and an answer quoting it starts or stops mid-clause.
 */
function dropCutSentences(candidates: Candidate[], segmentsOf: Map<Passage, Candidate[]>): void {
  const cut = new Set<Candidate>();
  const heldWhole = (part: Candidate, within: (c: Candidate) => boolean) =>
    candidates.some(
      (c) =>
        c.passage !== part.passage &&
        c.passage.fileName === part.passage.fileName &&
        c.text.length > part.text.length &&
        within(c),
    );
  for (const own of segmentsOf.values()) {
    const last = own[own.length - 1];
    if (last && !endsSentence(last.text) && heldWhole(last, (c) => c.text.startsWith(last.text)))
      cut.add(last);
    const first = own[0];
    if (first && startsMidSentence(first.text) && heldWhole(first, (c) => c.text.endsWith(first.text)))
      cut.add(first);
  }
  if (cut.size === 0) return;
  for (const [passage, own] of segmentsOf) {
    const rest = own.filter((c) => !cut.has(c));
    // A candidate's index is its place among its passage's segments (its neighbours are read by it).
    rest.forEach((c, i) => (c.index = i));
    segmentsOf.set(passage, rest);
  }
  const kept = candidates.filter((c) => !cut.has(c));
  candidates.splice(0, candidates.length, ...kept);
}

/**
 * A row's terms; a row whose label prints a line item the question asks for (`Purchases of
 * property, plant and equipment` for "capital expenditure") says it in the question's words too.
 */
function withItemStems(s: PassageSegment, items: readonly LineItemAsked[]): readonly string[] {
  if (!s.quote || items.length === 0) return s.stems;
  const item = lineItemOfRow(s.text);
  const asked = items.find((i) => i.item === item);
  return asked ? [...new Set([...s.stems, ...asked.stems])] : s.stems;
}
