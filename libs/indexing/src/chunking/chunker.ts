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
      }
      const piece = text.slice(start, end).trim();
      if (piece) out.push({ chunkIndex: out.length, pageNumber: page.pageNumber, text: piece });
      if (end >= text.length) break;
      // Step back at least `overlap` characters, then (a little) further to the start of a word.
      const back = end - o.overlap;
      const limit = Math.max(start + 1, back - Math.floor(o.overlap / 2));
      let next = back;
      while (next > limit && !isSpace(text[next - 1])) next--;
      start = next > limit ? next : Math.max(back, start + 1);
    }
  }
  return out;
}
