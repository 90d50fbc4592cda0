import type { Passage } from '../generation.port';

/**
 * What an answer says when the passages are about the question but none of their sentences
 * answers it: one sentence, followed by the markers of the best evidence.
 */
export const EVIDENCE_TEXT =
  'No passage states the answer directly; the closest evidence is on the pages cited here.';

/**
 * Below this share of the query's term weight in the best passage, the passages are not about the
 * question: the plain not-found answer. Set at the answerer's minCoverage (0.34) until the
 * whole-set evaluation says otherwise (docs/evaluation.md).
 */
export const EVIDENCE_MIN_COVERAGE = 0.34;

/** Pages an evidence answer cites at most (issue 58: "at most three pages"). */
export const EVIDENCE_MAX_PAGES = 3;

/**
 * A page is cited as evidence when its passage holds at least this share of the query weight the
 * best passage holds: the pages close to the best one, not every page retrieved. 0.5 as for the
 * close pages of an answer (closePageShare).
 */
export const EVIDENCE_SHARE = 0.5;

/**
 * The evidence answer: EVIDENCE_TEXT with the markers of the best passages, one per page, at most
 * EVIDENCE_MAX_PAGES pages, best first. `weight` says how much of the question a passage holds
 * (its share of the query weight, lowered by its retrieval rank).
 */
export function evidenceAnswer(passages: readonly Passage[], weight: (p: Passage) => number): string {
  const ranked = passages
    .map((p, rank) => ({ p, w: weight(p), rank }))
    .sort((a, b) => b.w - a.w || a.rank - b.rank);
  const best = ranked[0]?.w ?? 0;
  const pages = new Set<string>();
  const markers: number[] = [];
  for (const { p, w } of ranked) {
    if (markers.length >= EVIDENCE_MAX_PAGES || (best > 0 && w < best * EVIDENCE_SHARE)) break;
    const page = `${p.fileName}\u0000${p.pageNumber}`;
    if (pages.has(page)) continue;
    pages.add(page);
    markers.push(p.n);
  }
  return markers.length ? `${EVIDENCE_TEXT} ${markers.map((n) => `[${n}]`).join(' ')}` : EVIDENCE_TEXT;
}
