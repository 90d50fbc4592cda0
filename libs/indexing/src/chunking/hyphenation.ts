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

/** The text with its broken words cut out (each replaced by a space). */
function withoutBroken(text: string, breaks: readonly RegExpMatchArray[]): string {
  let out = '';
  let at = 0;
  for (const b of breaks) {
    out += `${text.slice(at, b.index)} `;
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
  const words = vocabulary(texts.map((t, i) => withoutBroken(t, breaks[i])));
  return pages.map((p, i) => {
    const text = texts[i];
    let out = '';
    let at = 0;
    let joined = false;
    for (const b of breaks[i]) {
      const word = `${b[1]}${b[2]}`;
      const join = words.has(word.toLowerCase());
      joined ||= join;
      out += text.slice(at, b.index) + (join ? word : b[0]);
      at = b.index! + b[0].length;
    }
    return joined ? { ...p, text: out + text.slice(at) } : p;
  });
}
