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
/** Pages an edge line must stand on (its page number aside) to be a running line. */
export const MIN_RUNNING_PAGES = 3;

/**
 * What a running line keeps from page to page: its words without the numbers (a page number),
 * lower case. A lone roman numeral (a front-matter page number) is `%`.
 */
export function runningKey(line: string): string {
  return line
    .toLowerCase()
    .replace(/^\s*[ivxlc]+\s*$/, '%')
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
 * collapsed spaces, line breaks kept). A line runs when it stands among the first or last
 * EDGE_LINES lines of at least MIN_RUNNING_PAGES pages with the same words and the numbers of a
 * running line (runningOccurrences). Lines are removed from the edges inwards only, so a repeated
 * line inside the body (a table's header row) stays. A page that would be left empty keeps its text.
 */
export function withoutRunningLines<P extends { text: string }>(pages: readonly P[]): P[] {
  if (pages.length < MIN_RUNNING_PAGES) return [...pages];
  const split = pages.map((p) => cleanPageText(p.text).split('\n'));
  const byKey = new Map<string, Occurrence[]>();
  split.forEach((lines, page) => {
    for (const i of edgeIndexes(lines)) {
      const line = lines[i].trim();
      if (line.length === 0 || line.length > MAX_RUNNING_CHARS) continue;
      const key = runningKey(line);
      const occurrence = { page, line, numbers: numbersOf(line) };
      const known = byKey.get(key);
      if (known) known.push(occurrence);
      else byKey.set(key, [occurrence]);
    }
  });
  const running = new Set<string>();
  for (const occurrences of byKey.values())
    for (const o of runningOccurrences(occurrences)) running.add(`${o.page}\u0000${o.line}`);
  return pages.map((p, page) => {
    const lines = split[page];
    const runs = (line: string) => running.has(`${page}\u0000${line.trim()}`);
    let from = 0;
    let to = lines.length;
    while (from < Math.min(EDGE_LINES, to) && runs(lines[from])) from++;
    while (to > from && lines.length - to < EDGE_LINES && runs(lines[to - 1])) to--;
    if (from === 0 && to === lines.length) return p;
    const kept = lines.slice(from, to).join('\n').trim();
    return kept ? { ...p, text: kept } : p;
  });
}

/** An edge line of a page, with its numbers. */
interface Occurrence {
  page: number;
  line: string;
  numbers: number[];
}

const numbersOf = (line: string) => (line.match(/\d+/g) ?? []).map(Number);

/**
 * The occurrences of one line shape (its runningKey) that are a running line: on at least
 * MIN_RUNNING_PAGES pages, with the same numbers every time (`NYC08CA055`, `Volume 28`) except at
 * most one, the page number, which follows the physical page at a fixed offset (printed page 29 on
 * the 33rd page). A total or a table row at a page's foot (`Subtotal 1,204 9,877`, `Items: 5`) has
 * the shape but not these numbers, and stays.
 */
function runningOccurrences(occurrences: readonly Occurrence[]): Occurrence[] {
  if (new Set(occurrences.map((o) => o.page)).size < MIN_RUNNING_PAGES) return [];
  const first = occurrences[0].numbers;
  const varying = first.map((_, i) => i).filter((i) => occurrences.some((o) => o.numbers[i] !== first[i]));
  if (varying.length === 0) return [...occurrences];
  if (varying.length > 1) return [];
  const at = varying[0];
  const byOffset = new Map<number, Occurrence[]>();
  for (const o of occurrences) {
    const offset = o.numbers[at] - o.page;
    const group = byOffset.get(offset);
    if (group) group.push(o);
    else byOffset.set(offset, [o]);
  }
  return [...byOffset.values()].filter((g) => new Set(g.map((o) => o.page)).size >= MIN_RUNNING_PAGES).flat();
}
