/**
 * Dates as search tokens. A document writes `12/08/2007` where a question says "December 8, 2007"
 * or "8 December 2007"; neither BM25 nor a small embedder connects them. Both sides are therefore
 * reduced to the same tokens: `20071208` for a day and `200712` for its month ("December 2007"
 * gives the month token only). Indexing adds the tokens of a document's dates to its context
 * fields; a search adds the tokens of the query's dates to the query of those fields.
 */
const MONTHS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6,
  june: 6, jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10,
  nov: 11, november: 11, dec: 12, december: 12,
}; // prettier-ignore

const MONTH = `(${Object.keys(MONTHS).join('|')})\\.?`;
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR = '((?:1[89]|2[01])\\d\\d)';
const PATTERNS: Array<{ re: RegExp; parts: (m: RegExpExecArray) => Array<[number, number, number?]> }> = [
  // 2007-12-08, 2007/12/08
  {
    re: new RegExp(`\\b${YEAR}[-/.](\\d{1,2})[-/.](\\d{1,2})\\b`, 'g'),
    parts: (m) => [[+m[1], +m[2], +m[3]]],
  },
  // 12/08/2007 or 08.12.2007: month first (US) and day first, when both readings are valid
  {
    re: new RegExp(`\\b(\\d{1,2})[/.-](\\d{1,2})[/.-]${YEAR}\\b`, 'g'),
    parts: (m) => [
      [+m[3], +m[1], +m[2]],
      [+m[3], +m[2], +m[1]],
    ],
  },
  // December 8, 2007 / Dec. 8th 2007
  {
    re: new RegExp(`\\b${MONTH}\\s+${DAY},?\\s+${YEAR}\\b`, 'gi'),
    parts: (m) => [[+m[3], month(m[1]), +m[2]]],
  },
  // 8 December 2007 / 8th of December, 2007
  {
    re: new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH},?\\s+${YEAR}\\b`, 'gi'),
    parts: (m) => [[+m[3], month(m[2]), +m[1]]],
  },
  // December 2007 (a period: month token only)
  { re: new RegExp(`\\b${MONTH},?\\s+${YEAR}\\b`, 'gi'), parts: (m) => [[+m[2], month(m[1])]] },
];

function month(name: string): number {
  return MONTHS[name.toLowerCase().replace(/\.$/, '')] ?? 0;
}

const pad = (n: number) => String(n).padStart(2, '0');

function valid(y: number, m: number, d?: number): boolean {
  if (m < 1 || m > 12) return false;
  if (d === undefined) return true;
  return d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/**
 * Every date mentioned in the text, in order, as its tokens: a day gives its day and month tokens
 * (both readings when `08/12/2007` could be either), a month-and-year period its month token.
 */
export function dateMentions(text: string): string[][] {
  const found: Array<{ at: number; tokens: string[] }> = [];
  for (const { re, parts } of PATTERNS) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const tokens: string[] = [];
      for (const [y, mo, d] of parts(m)) {
        if (!valid(y, mo, d)) continue;
        if (d !== undefined) tokens.push(`${y}${pad(mo)}${pad(d)}`);
        tokens.push(`${y}${pad(mo)}`);
      }
      if (tokens.length) found.push({ at: m.index, tokens });
    }
  }
  found.sort((a, b) => a.at - b.at);
  return found.map((f) => [...new Set(f.tokens)]);
}

/** The text with its dates blanked out (what is left once the dates are taken as tokens). */
export function withoutDates(text: string): string {
  let out = text;
  for (const { re } of PATTERNS) out = out.replace(new RegExp(re.source, re.flags), ' ');
  return out;
}

/** Day and month tokens of every date in the text, in order of first appearance, no duplicates. */
export function dateTokens(text: string): string[] {
  return [...new Set(dateMentions(text).flat())];
}
