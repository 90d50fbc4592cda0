import { headerAbove, isTableLine, tableRow } from '@docqa/text';

/** One chunk of a document: text from a single physical page. */
export interface Chunk {
  /** Position in the document, 0-based; with the document id it makes the chunk id. */
  chunkIndex: number;
  /** 1-based physical page the text comes from. */
  pageNumber: number;
  text: string;
}

export interface ChunkOptions {
  /** Target chunk length in characters. */
  size: number;
  /**
   * Characters shared by consecutive chunks of a page. Any passage of at most this length lies
   * wholly inside at least one chunk (boundaries only ever widen the overlap).
   */
  overlap: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { size: 1200, overlap: 240 };

/** Collapses runs of spaces and blank lines; keeps line breaks (hyphenation stays recognisable). */
export function cleanPageText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\n';

/**
 * Page-aware, overlapping chunks: a chunk never spans two pages, so every chunk carries exactly
 * one page number. Within a page, windows of about `size` characters end at a whitespace where one
 * is near, and the next window starts `overlap` characters (or a little more) before the end.
 * Tables stay readable: a window never ends or starts inside a table row (a label and its
 * figures), and a chunk holding rows of a table whose header of periods lies above it starts
 * with that header line (`(Millions) 2018 2017 2016`), so each row keeps its columns' meaning
 * for the search index and the answerers alike.
 */
export function chunkPages(
  pages: ReadonlyArray<{ pageNumber: number; text: string }>,
  o = DEFAULT_CHUNKING,
): Chunk[] {
  if (o.overlap >= o.size / 2) throw new Error('chunkPages: overlap must be under half the size');
  const out: Chunk[] = [];
  for (const page of pages) {
    const text = cleanPageText(page.text);
    let start = 0;
    while (start < text.length) {
      let end = Math.min(text.length, start + o.size);
      if (end < text.length) {
        // Prefer to end at a whitespace in the last quarter of the window.
        const floor = start + Math.floor(o.size * 0.75);
        let cut = end;
        while (cut > floor && !isSpace(text[cut])) cut--;
        if (cut > floor) end = cut;
        end = outsideTableLine(text, end, start + Math.floor(o.size / 2));
      }
      const piece = text.slice(start, end).trim();
      if (piece)
        out.push({
          chunkIndex: out.length,
          pageNumber: page.pageNumber,
          text: withTableHeader(text, start, piece),
        });
      if (end >= text.length) break;
      // Step back at least `overlap` characters, then (a little) further to the start of a word.
      const back = end - o.overlap;
      const limit = Math.max(start + 1, back - Math.floor(o.overlap / 2));
      let next = back;
      while (next > limit && !isSpace(text[next - 1])) next--;
      next = next > limit ? next : Math.max(back, start + 1);
      // Never start inside a table row: from the start of its line.
      const row = lineAt(text, next);
      start = row.start > start && row.start < next && isTableLine(row.line) ? row.start : next;
    }
  }
  return out;
}

/** The line of `text` that position `at` falls in, and where it starts and ends. */
function lineAt(text: string, at: number): { start: number; end: number; line: string } {
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const nl = text.indexOf('\n', at);
  const end = nl < 0 ? text.length : nl;
  return { start, end, line: text.slice(start, end) };
}

/**
 * A window end moved out of a table line it would cut: back to the line's start when that leaves
 * the window at least `minEnd` long, else on to the line's end (rows are short).
 */
function outsideTableLine(text: string, end: number, minEnd: number): number {
  const l = lineAt(text, end);
  if (end <= l.start || end >= l.end || !isTableLine(l.line)) return end;
  return l.start >= minEnd ? l.start : l.end;
}

/** The chunk's text, led by its table's header line when it holds rows whose header lies above it. */
function withTableHeader(text: string, start: number, piece: string): string {
  if (!piece.split('\n').some((line) => tableRow(line))) return piece;
  const header = headerAbove(text, start);
  return header && !piece.includes(header) ? `${header}\n${piece}` : piece;
}
