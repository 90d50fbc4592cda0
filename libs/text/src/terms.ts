/**
 * Term analysis shared by the ask pipeline (libs/rag: what a question is about, uncovered topics),
 * the local models (generator, rewriter, reranker, titler) and the local hashing embedder.
 */

/** Only ASCII characters: NFKD leaves them as they are and none is a combining mark. */
const ASCII = /^\p{ASCII}*$/u;

/** Lowercase, compatibility-normalised, accents removed: "Größe" -> "grosse", "café" -> "cafe". */
export function normaliseText(s: string): string {
  // Most text is ASCII, where the normalisation is lowercasing alone: the same result without the
  // Unicode passes (the reranker and answerer normalise every word of every passage of an ask).
  if (ASCII.test(s)) return s.toLowerCase();
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss');
}

/** A crude English suffix stripper, so word forms share a feature ("margins" ~ "margin"). */
export function lightStem(w: string): string {
  if (w.length <= 4) return w;
  for (const suf of [
    'ations',
    'ation',
    'ings',
    'ing',
    'edly',
    'ies',
    'ied',
    'ers',
    'er',
    'ed',
    'es',
    'ly',
    's',
  ]) {
    if (w.endsWith(suf) && w.length - suf.length >= 3) {
      const base = w.slice(0, -suf.length);
      return suf === 'ies' || suf === 'ied' ? `${base}y` : base;
    }
  }
  return w;
}

/**
 * Words that carry no subject in a question or a sentence. Question words are included: a
 * question's "how", "which" or "default" says what is asked, not what it is about.
 */
export const STOP_WORDS = new Set(
  (
    'a an and are as at be been being but by for from has have had he her his i if in into is it its ' +
    "it's me my no nor not of on or our she so than that the their them then there these they this those " +
    'to was we were what when where which who whom whose why will with would you your yours can could do ' +
    'does did doing done how all any some also just about after before again should shall may might must ' +
    'very too only own same such here each other more most both few until while up down out off over under ' +
    "once further am s t don doesn didn isn aren wasn weren won wouldn couldn shouldn let lets i'm i've " +
    'want need like get gets got use used using make makes way ways thing things one ones please tell know ' +
    'say says said give gives instead without whether really actually possible inside within across along ' +
    'among around behind below beside between beyond during except near onto through toward towards upon via'
  ).split(/\s+/),
);

/** Normalised words (letters/digits runs), in order, duplicates kept. */
export function words(text: string): string[] {
  // In ASCII text normalising is lowercasing, and the letters and digits are then [a-z0-9]: the
  // same runs, found without the Unicode passes.
  if (ASCII.test(text)) return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return normaliseText(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Stemmed content words, in order, duplicates kept. */
export function contentStems(text: string): string[] {
  return words(text)
    .filter((w) => !STOP_WORDS.has(w))
    .map(stem);
}

export function stem(w: string): string {
  return lightStem(w);
}

/**
 * Derivational endings that `stem` leaves on a word: the noun or adjective made from a verb or
 * noun ("departure", "arrival", "inspector", "encryption", "periodic"). Questions ask with one form
 * ("Where did it depart from?") and documents, forms above all, label with another
 * (`Departure Point:`).
 */
const DERIVATIONAL_ENDINGS = ['ure', 'al', 'ion', 'ive', 'ance', 'ence', 'ent', 'or', 'ic', 'able', 'ible'];

/**
 * Shortest stem a derivational ending is added to; shorter ones give unrelated words (`port` ~
 * `portal`). `-ment` and `-ant` are left out for the same reason: `depart` ~ `department`,
 * `import` ~ `important`.
 */
const MIN_DERIVATION_BASE = 5;

/**
 * Whether two stems are forms of one word: one is the other plus a derivational ending
 * (`depart` ~ `departure`, `inspect` ~ `inspector`), the shorter of at least five letters.
 */
export function derivedForms(a: string, b: string): boolean {
  const [base, form] = a.length <= b.length ? [a, b] : [b, a];
  if (base.length < MIN_DERIVATION_BASE || !form.startsWith(base)) return false;
  return DERIVATIONAL_ENDINGS.includes(form.slice(base.length));
}

/** "CCC is defined as", "FCF here is defined as", "EBITDA = ...": a name the text defines. */
const DEFINED_AS =
  /\b([\p{L}][\p{L}\p{N}&-]{1,24})\s+(?:here\s+)?(?:is|are)\s+(?:defined|calculated|computed)\s+as\b/giu;
/** An abbreviation given in parentheses after what it stands for: "cash conversion cycle (CCC)". */
const ABBREVIATION = /\(\s*(\p{Lu}[\p{Lu}\p{N}&]{1,9})\s*\)/gu;

/**
 * The words a text defines itself (lower case): names it says how to compute, abbreviations it
 * spells out. A question that defines a term does not need the documents to use it.
 */
export function definedTerms(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(DEFINED_AS)) out.add(m[1].toLowerCase());
  for (const m of text.matchAll(ABBREVIATION)) out.add(m[1].toLowerCase());
  return out;
}

/**
 * The distinct content words of a query (normalised, no stop words, no bare numbers, at least 3
 * characters), in order: what a question is about.
 */
export function queryTerms(text: string): string[] {
  return [...new Set(words(text).filter((w) => w.length >= 3 && !STOP_WORDS.has(w) && !/^\d+$/.test(w)))];
}

/** A capitalised word that does not start a sentence (`near Chandler, Arizona`), and not all capitals. */
const NAME_WORD = /(?<![.?!:;]\s*|^\s*|[\p{L}\p{N}'’-])(\p{Lu}\p{Ll}[\p{L}\p{N}]*)/gu;

/**
 * The names a text writes (lower case): words capitalised inside a sentence, as places, people,
 * products and companies are written. Acronyms (all capitals) are left out: documents spell them
 * out or abbreviate them in many ways (`AZ`, `Arizona`), as are sentence starts.
 */
export function namesIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(NAME_WORD)) if (m[1].length >= 3) out.add(normaliseText(m[1]));
  return out;
}
