import { cleanPageText } from './chunker';

/**
 * Running headers and footers: lines printed at the top or bottom of many pages of a document
 * (`Chapter 7: R Miscellanea 29`, `Page 2 of 4 NYC08CA055`, `Apple Inc. | Q3 2023 Form 10-Q | 12`,
 * a page number). In a chunk they are noise a sentence gets glued to ("Chapter 7: R Miscellanea 38.
 * 7.33 Why are powers ...") and words every page of the chapter shares, so they are taken out of the
 * text that is chunked. The document's context (title, identifying terms) is still drawn from the
 * whole pages, where a running header's name counts.
 */

/** Lines examined at each edge of a page. */
const EDGE_LINES = 2;
/** A running line is longer than nothing and shorter than a sentence of body text. */
const MAX_RUNNING_CHARS = 120;
/** Pages an edge line must repeat on (digits aside) to be a running line. */
export const MIN_RUNNING_PAGES = 3;

/**
 * What a running line keeps from page to page: its words without the numbers (a page number, a
 * chapter's page range), lower case. Lone roman numerals are front-matter page numbers.
 */
export function runningKey(line: string): string {
  return line
    .toLowerCase()
    .replace(/^\s*[ivxlc]+\s*$/, '#')
    .replace(/\d+/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
}

function edgeIndexes(lines: readonly string[]): number[] {
  const out = new Set<number>();
  for (let i = 0; i < Math.min(EDGE_LINES, lines.length); i++) {
    out.add(i);
    out.add(lines.length - 1 - i);
  }
  return [...out];
}

/**
 * The pages with the running lines at their edges removed (the cleaned text of chunkPages:
 * collapsed spaces, line breaks kept). A line runs when, digits aside, it stands among the first or
 * last EDGE_LINES lines of at least MIN_RUNNING_PAGES pages. Lines are removed from the edges
 * inwards only, so a repeated line inside the body (a table's header row) stays. A page that would
 * be left empty keeps its text.
 */
export function withoutRunningLines<P extends { text: string }>(pages: readonly P[]): P[] {
  if (pages.length < MIN_RUNNING_PAGES) return [...pages];
  const split = pages.map((p) => cleanPageText(p.text).split('\n'));
  const pagesWith = new Map<string, number>();
  for (const lines of split) {
    const keys = new Set(
      edgeIndexes(lines)
        .map((i) => lines[i].trim())
        .filter((l) => l.length > 0 && l.length <= MAX_RUNNING_CHARS)
        .map(runningKey),
    );
    for (const k of keys) pagesWith.set(k, (pagesWith.get(k) ?? 0) + 1);
  }
  const runs = (line: string | undefined) => {
    const l = line?.trim() ?? '';
    return (
      l.length > 0 &&
      l.length <= MAX_RUNNING_CHARS &&
      (pagesWith.get(runningKey(l)) ?? 0) >= MIN_RUNNING_PAGES
    );
  };
  return pages.map((p, pi) => {
    const lines = split[pi];
    let from = 0;
    let to = lines.length;
    while (from < Math.min(EDGE_LINES, to) && runs(lines[from])) from++;
    while (to > from && lines.length - to < EDGE_LINES && runs(lines[to - 1])) to--;
    if (from === 0 && to === lines.length) return p;
    const kept = lines.slice(from, to).join('\n').trim();
    return kept ? { ...p, text: kept } : p;
  });
}
