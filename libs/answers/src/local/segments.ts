import { tableHeader, tableRow } from '@docqa/text';

/**
 * Splits extracted page text into answer-sized segments: sentences, list items, form fields
 * (`Label: value` lines, with their wrapped continuation), table rows (a label and its figures,
 * one line each; a table's header of periods is no segment), and code or table lines that end in
 * `;`. PDF text has a line break at every printed line, so lines are joined first; a line-break hyphen (`dimen-\nsions`) is kept as a plain hyphen (`dimen-sions`), since a
 * real compound (`user-\ndefined`) cannot be told apart.
 */
const MAX_SEGMENT = 360;
const BULLET = /^[•◦▪‣∙·*–-]\s/u;
/** A form field at the start of a line (`Flight Time: 2319 hours`): it starts a segment of its own. */
const FIELD = /^\p{Lu}[\p{L}\p{N}&/()'’. -]{0,40}:(\s|$)/u;
const LINE_END = /[.!?:;]["'”’)\]]*$/u;

/**
 * Whether a text ends where a sentence (or a line of its own: a label, a code line) ends. A chunk's
 * text that does not was cut mid-sentence by the chunk window.
 */
export function endsSentence(text: string): boolean {
  return LINE_END.test(text.trimEnd());
}

/** Whether a text starts mid-sentence: in lower case (a chunk window begins at a word, not at a sentence). */
export function startsMidSentence(text: string): boolean {
  return /^\p{Ll}/u.test(text);
}
/**
 * A sentence end inside a line: `. ` followed by a capital, a backslash command or a quote; not
 * after a title or abbreviation that stands before a name or an example (`St. Kitts`, `Dr. Smith`,
 * `e.g. The`). Initials (`D. E. Knuth`) never end one: a capital before the `.` is no sentence end.
 */
const INNER_END =
  /(?<=[\p{Ll}\p{N})"”'’\]}][.!?])(?<!(?:^|[^\p{L}.])(?:Mr|Mrs|Ms|Dr|Prof|St|Mt|vs|cf|e\.g|i\.e)\.)\s+(?=[\p{Lu}\\"“(])/u;

export function segmentText(text: string): string[] {
  const out: string[] = [];
  let buf = '';
  let field = false;
  const flush = () => {
    const s = buf.trim();
    if (s) out.push(...s.split(INNER_END).flatMap(splitLong));
    buf = '';
    field = false;
  };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+/g, ' ').trim();
    if (!line) {
      flush();
      continue;
    }
    const header = !!tableHeader(line);
    if (header || tableRow(line)) {
      flush();
      if (!header) out.push(line);
      continue;
    }
    if ((BULLET.test(line) || FIELD.test(line) || (field && !continuesField(buf, line))) && buf) flush();
    if (!buf) {
      buf = line;
      field = FIELD.test(line);
    } else if (/\p{L}-$/u.test(buf) && /^\p{Ll}/u.test(line)) buf += line;
    else buf += ` ${line}`;
    if (LINE_END.test(line) || buf.length > 4 * MAX_SEGMENT) flush();
  }
  flush();
  return out
    .flatMap((s) => s.split(INNER_END))
    .map((s) => s.trim())
    .filter((s) => s.length > 1);
}

/**
 * Whether a line continues the form field before it: the value was cut mid-parenthesis or after a
 * comma, or the line goes on in lower case. Otherwise the field ended with its line, and a heading
 * or a paragraph that follows is not part of its value.
 */
function continuesField(buf: string, line: string): boolean {
  const open = (buf.match(/\(/g) ?? []).length > (buf.match(/\)/g) ?? []).length;
  return open || /[,(&/-]$/.test(buf) || /^\p{Ll}/u.test(line);
}

/** Cuts an over-long run (tables, run-together text) at a clause or word boundary. */
function splitLong(s: string): string[] {
  const out: string[] = [];
  let rest = s;
  while (rest.length > MAX_SEGMENT) {
    let cut = -1;
    for (const sep of ['; ', ', ', ' ']) {
      const at = rest.lastIndexOf(sep, MAX_SEGMENT - 40);
      if (at > MAX_SEGMENT / 3) {
        cut = at + sep.length - 1;
        break;
      }
    }
    if (cut < 0) cut = MAX_SEGMENT;
    out.push(rest.slice(0, cut + 1).trim());
    rest = rest.slice(cut + 1).trim();
  }
  if (rest) out.push(rest);
  return out;
}
