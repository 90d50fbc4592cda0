import { cleanPageText } from './chunker';

/**
 * Words a typesetter broke at a line end (`dimen-\nsions`), joined again where the document itself
 * writes the whole word elsewhere. PDF text keeps the printed lines, so a broken word is two
 * fragments to the search engine and the embedder (`dimen`, `sions`), neither of which a question
 * contains, and a citation shows it broken. A real compound broken at its own hyphen
 * (`user-\ndefined`) looks the same, so the document's own vocabulary decides: the joined word is
 * used only when it also appears unbroken in the document; otherwise the hyphen stays.
 */

/** A word broken at a line end: letters, a hyphen, the line break, lower-case letters. */
const BROKEN = /(\p{L}+)-\n(\p{Ll}+)/gu;
const HAS_BROKEN = /\p{L}-\n\p{Ll}/u;
const WORD = /\p{L}{2,}/gu;

/** The lower-case words of the texts, broken fragments excluded. */
function vocabulary(texts: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const t of texts) {
    for (const w of t.replace(BROKEN, ' ').match(WORD) ?? []) words.add(w.toLowerCase());
  }
  return words;
}

/**
 * The pages with each line-end hyphenation joined (`dimen-\nsions` -> `dimensions`, the rest of the
 * line following it) when the document writes the joined word elsewhere; other hyphens untouched. A
 * page with a joined word comes back as cleaned text (cleanPageText), the others as they were.
 */
export function joinHyphenatedWords<P extends { text: string }>(pages: readonly P[]): P[] {
  const texts = pages.map((p) => cleanPageText(p.text));
  if (!texts.some((t) => HAS_BROKEN.test(t))) return [...pages];
  const words = vocabulary(texts);
  return pages.map((p, i) => {
    let joined = false;
    const text = texts[i].replace(BROKEN, (whole, head: string, tail: string) => {
      if (!words.has(`${head}${tail}`.toLowerCase())) return whole;
      joined = true;
      return `${head}${tail}`;
    });
    return joined ? { ...p, text } : p;
  });
}
