import { cleanPageText } from './chunker';

/**
 * Words a typesetter broke at a line end (`dimen-\nsions`), joined again where the document itself
 * writes the whole word elsewhere. PDF text keeps the printed lines, so a broken word is two
 * fragments to the search engine and the embedder (`dimen`, `sions`), neither of which a question
 * contains, and a citation shows it broken. A real compound broken at its own hyphen
 * (`user-\ndefined`) looks the same, so the document's own vocabulary decides: the joined word is
 * used only when it also appears unbroken in the document; otherwise the hyphen stays.
 */

/**
 * A word broken at a line end: letters, a hyphen, the line break, lower-case letters. The lookbehind
 * makes it start at a word's first letter, so a start inside a word fails at once instead of
 * scanning the rest of the word again.
 */
const BROKEN = /(?<!\p{L})(\p{L}+)-\n(\p{Ll}+)/gu;
const WORD = /\p{L}{2,}/gu;

/** The text with each broken word replaced by what `replace` gives for it. */
function spliced(
  text: string,
  breaks: readonly RegExpMatchArray[],
  replace: (b: RegExpMatchArray) => string,
): string {
  let out = '';
  let at = 0;
  for (const b of breaks) {
    out += text.slice(at, b.index) + replace(b);
    at = b.index! + b[0].length;
  }
  return out + text.slice(at);
}

/** The lower-case words of the texts. */
function vocabulary(texts: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const t of texts) for (const w of t.match(WORD) ?? []) words.add(w.toLowerCase());
  return words;
}

/**
 * The pages with each line-end hyphenation joined (`dimen-\nsions` -> `dimensions`, the rest of the
 * line following it) when the document writes the joined word elsewhere; other hyphens untouched. A
 * page with a joined word comes back as cleaned text (cleanPageText), the others as they were. The
 * broken words of a page are found once, for the vocabulary and for the joins.
 */
export function joinHyphenatedWords<P extends { text: string }>(pages: readonly P[]): P[] {
  const texts = pages.map((p) => cleanPageText(p.text));
  const breaks = texts.map((t) => (t.includes('-\n') ? [...t.matchAll(BROKEN)] : []));
  if (breaks.every((b) => b.length === 0)) return [...pages];
  // the vocabulary leaves the broken fragments out (each cut to a space)
  const words = vocabulary(texts.map((t, i) => spliced(t, breaks[i], () => ' ')));
  const joins = (b: RegExpMatchArray) => words.has(`${b[1]}${b[2]}`.toLowerCase());
  return pages.map((p, i) =>
    breaks[i].some(joins)
      ? { ...p, text: spliced(texts[i], breaks[i], (b) => (joins(b) ? `${b[1]}${b[2]}` : b[0])) }
      : p,
  );
}
