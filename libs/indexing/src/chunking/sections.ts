import type { Chunk } from './chunker';
import { cleanPageText } from './chunker';

/**
 * Section headings in extracted page text, so a chunk knows the heading it falls under. PDF text
 * has no markup, so a heading is recognised by its shape: a numbered line (`1.5.1 Transaction
 * Properties`, `Chapter 5: Arrays and matrices`) or a short title-cased line of words alone on
 * its line (`Pilot Information`), never a label (`Registration:`), a sentence or code.
 */
export interface HeadingLine {
  text: string;
  /** 0 for chapters and parts, 1 for `3`, 2 for `3.1`, ...; unnumbered headings have none. */
  level?: number;
}

const FUNCTION_WORDS = new Set(
  'a an and as at by for from in into of on or the to with via vs per over under about without'.split(' '),
);
const PLAIN = /^[\p{L}\p{N}][\p{L}\p{N}\s'’&,()/-]*$/u;
const CHAPTER = /^(chapter|part|appendix|section)\s+([\dIVXLC]+|[A-Z])\b[.:]?\s*(.*)$/iu;
const NUMBERED = /^((?:\d+\.)+\d+|\d+)\.?\s+(\p{L}.*)$/u;

/** `Page 2 of 4 NYC08CA055`, `Copyright ...`: printed on every page, no section. */
const RUNNING_HEADER = /^(page\s+\d+\b|copyright\b|©)/i;

/** A heading this close to a chunk's start is the chunk's own. */
const HEAD_CHARS = 150;

const words = (s: string) => s.split(/\s+/).filter(Boolean);

function titleCased(text: string): boolean {
  const ws = words(text).filter((w) => /\p{L}/u.test(w) && !FUNCTION_WORDS.has(w.toLowerCase()));
  if (ws.length === 0) return false;
  return ws.filter((w) => /^[\p{Lu}\p{N}]/u.test(w)).length / ws.length >= 0.7;
}

/** The heading a line is, if it reads as one. */
export function headingOf(rawLine: string): HeadingLine | undefined {
  const line = rawLine.replace(/\s+/g, ' ').trim();
  if (line.length < 3 || line.length > 100) return undefined;
  const chapter = CHAPTER.exec(line);
  if (chapter) {
    const rest = chapter[3].replace(/\s+\d+$/, '').trim(); // a running header ends in the page number
    if (rest && !PLAIN.test(rest)) return undefined;
    return { text: rest ? `${chapter[1]} ${chapter[2]} ${rest}` : `${chapter[1]} ${chapter[2]}`, level: 0 };
  }
  if (/[.,;:!?]$/.test(line) || RUNNING_HEADER.test(line)) return undefined;
  const numbered = NUMBERED.exec(line);
  if (numbered) {
    const rest = numbered[2];
    if (!PLAIN.test(rest)) return undefined;
    const n = words(rest).length;
    const depth = numbered[1].split('.').length;
    if (n > 12 || (depth === 1 && (n > 8 || !titleCased(rest))) || !/\p{Ll}/u.test(rest)) return undefined;
    return { text: line, level: depth };
  }
  const ws = words(line);
  const n = ws.length;
  if (n < 2 || n > 10 || !PLAIN.test(line) || !/^\p{Lu}/u.test(line)) return undefined;
  if (ws.filter((w) => /\d/.test(w)).length * 2 >= n) return undefined; // a date, a table row
  const allCaps = !/\p{Ll}/u.test(line);
  if (allCaps ? n > 6 : !titleCased(line)) return undefined;
  return { text: line };
}

/**
 * The section each chunk falls under: the headings in force where the chunk starts (headings in
 * its first lines included), as `parent > heading` at most. Headings carry over
 * from page to page.
 */
export function chunkSections(
  pages: ReadonlyArray<{ pageNumber: number; text: string }>,
  chunks: readonly Chunk[],
): string[] {
  const out: string[] = [];
  // Stack of headings by level; unnumbered headings sit one below the deepest numbered one.
  let stack: Array<{ level: number; text: string; numbered: boolean }> = [];
  const current = () =>
    stack
      .slice(-2)
      .map((h) => h.text)
      .join(' > ');
  let ci = 0;
  for (const page of pages) {
    const text = cleanPageText(page.text);
    const headings: Array<{ at: number; h: HeadingLine }> = [];
    let at = 0;
    for (const line of text.split('\n')) {
      const h = headingOf(line);
      if (h) headings.push({ at, h });
      at += line.length + 1;
    }
    let hi = 0;
    let searchFrom = 0;
    const apply = (h: HeadingLine) => {
      if (stack.some((s) => s.text === h.text)) return; // a running header repeating the section
      const numbered = stack.filter((s) => s.numbered).map((s) => s.level);
      const level = h.level ?? (numbered.length ? Math.max(...numbered) : 0) + 0.5;
      stack = stack.filter((s) => s.level < level);
      stack.push({ level, text: h.text, numbered: h.level !== undefined });
    };
    while (ci < chunks.length && chunks[ci].pageNumber === page.pageNumber) {
      const c = chunks[ci];
      const start = Math.max(0, text.indexOf(c.text.slice(0, 40), searchFrom));
      searchFrom = start + 1;
      // Headings before the chunk, and those in its first lines (after a running header), are in force for it.
      const limit = start + Math.min(HEAD_CHARS, c.text.length);
      while (hi < headings.length && headings[hi].at <= limit) apply(headings[hi++].h);
      out.push(current().slice(0, 160));
      ci++;
    }
    while (hi < headings.length) apply(headings[hi++].h);
  }
  while (out.length < chunks.length) out.push(current());
  return out;
}
