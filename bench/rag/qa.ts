/* QA items of the corpora and the text normalisation of shared/corpus/verify_qa.sh (no engines). */

/**
 * One line of a corpus's qa.jsonl. Both formats: dev (single-document kinds, `pastMessages`) and
 * similar (`fact`, `compare`, `list` with `alsoFiles`, `unanswerable` with null file and page).
 */
export interface QaItem {
  id: string;
  question: string;
  answer: string;
  kind: string;
  fileName: string | null;
  page: number | null;
  alsoOnPages?: number[];
  /** The other documents a compare or list item names (each must be cited). */
  alsoFiles?: Array<{ fileName: string; page: number; evidence?: string[]; item?: string }>;
  evidence?: string[];
  item?: string;
  note?: string;
  pastMessages?: Array<{ role: 'user' | 'assistant'; content: string }>;
}

// Normalisation of shared/corpus/verify_qa.sh: NFKC, typographic quotes/dashes/spaces to ASCII,
// soft hyphens dropped, hyphenated line breaks joined with and without the hyphen, whitespace
// collapsed, lower-cased; thousands separators dropped ("2,319" = "2319", as the similar corpus's
// verify_qa.sh counts numbers).
const TR: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u2032': "'", '`': "'", '\u00b4': "'",
  '\u201c': '"', '\u201d': '"', '\u201e': '"', '\u201f': '"', '\u00ab': '"', '\u00bb': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u00a0': ' ', '\u2009': ' ', '\u202f': ' ', '\u2007': ' ', '\u200b': '', '\u00ad': '', '\ufffd': ' ',
}; // prettier-ignore
const chars = (s: string) =>
  [...s.normalize('NFKC')]
    .map((c) => TR[c] ?? c)
    .join('')
    .replace(/(?<=\d),(?=\d{3}\b)/g, '');

/** Page text variants as verify_qa.sh builds them. */
export function pageVariants(text: string): string[] {
  const t = chars(text);
  return [t.replace(/(\w)-[ \t]*\n[ \t]*(\w)/g, '$1$2'), t.replace(/(\w)-[ \t]*\n[ \t]*(\w)/g, '$1-$2')].map(
    (v) => v.replace(/\s+/g, ' ').trim().toLowerCase(),
  );
}

/**
 * Answer text variants: as written, and with the line-break hyphens the extractive answerer keeps
 * (`dimen-sions`) joined, since it cannot tell them from real compounds.
 */
export function answerVariants(text: string): string[] {
  const t = chars(text).replace(/\s+/g, ' ').trim().toLowerCase();
  return [t, t.replace(/(\w)-(\w)/g, '$1$2')];
}

export function normalisedPhrase(s: string): string {
  return chars(s).replace(/\s+/g, ' ').trim().toLowerCase();
}
