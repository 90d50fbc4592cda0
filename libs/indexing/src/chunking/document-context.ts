// @docqa/text is a leaf (no Nest, no config): this module also runs in the preparer thread.
import { dateMentions, filingMetadata, filingTitle } from '@docqa/text';
import { headingOf } from './sections';

/**
 * What a chunk knows of its document. A page of a report rarely repeats what the report is about
 * (a 10-Q page does not name the company; page 2 of an accident report does not name the place),
 * so every chunk carries its document's title and identifying terms, and the heading it falls
 * under. They are indexed as searchable fields and put in front of the text that is embedded.
 */
export interface DocumentContext {
  /** The title (PDF metadata title, else the first heading lines) and the file name's words. */
  title: string;
  /**
   * What identifies the document throughout its body: its most frequent proper names and
   * identifiers, and the tokens of its most frequent dates (see `dateTokens`).
   */
  terms: string;
  /** The most salient terms, for the embedded prefix (the title carries the rest). */
  keyTerms: string[];
  /**
   * A filing's company, form and period (libs/text filingTitle; empty for other documents). It
   * leads the searchable title, so questions that name a company and a fiscal year or quarter are
   * routed to that filing; the embedded prefix keeps the title alone (its measured form).
   */
  filing: string;
}

export interface DocumentContextOptions {
  /** Proper names and identifiers kept (default 48). */
  maxTerms?: number;
  /** Distinct dates kept (default 8). */
  maxDates?: number;
}

/** `AAPL_10-Q_2023Q1.pdf` -> `AAPL 10-Q 2023Q1`; `GS9_Color_Management` -> `GS9 Color Management`. */
export function fileNameWords(fileName: string): string {
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.[A-Za-z0-9]{1,5}$/, '');
  return base
    .replace(/[_+.,()[\]{}]+/g, ' ')
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Running headers and footers that are no title: `Page 1 of 4`, `- 3 -`, `iv`, a lone number. */
const BOILERPLATE_LINE =
  /^(page\s+\d+(\s+of\s+\d+)?\b.*|[-–\s]*\d+[-–\s]*|[ivxlc]+|contents|table of contents)$/i;

/** Metadata titles that say nothing: empty, "untitled", a file name, a word processor's default. */
function usefulTitle(title: string | null | undefined): string | undefined {
  const t = (title ?? '').replace(/\s+/g, ' ').trim();
  if (t.length < 3 || /^(untitled|document\d*|microsoft word\b.*)$/i.test(t)) return undefined;
  if (/\.(docx?|pdf|txt|rtf|odt|html?|pptx?|xlsx?)$/i.test(t)) return undefined;
  return t;
}

/** A heading is a few words; a longer line is body text. */
const MAX_HEADING_WORDS = 12;

/**
 * The first two lines of the first page that read as a title (letters, not boilerplate). A line
 * that reads as a sentence is body text, and so is one longer than a heading, of which only a short
 * first sentence can be one (`Holiday policy. Every employee gets ...` -> `Holiday policy`); nothing
 * after body text is a title.
 * Taking a paragraph as the title would make its words the document's name, which the answerer
 * then does not count as what the paragraph says.
 */
export function firstHeading(firstPage: string): string {
  const out: string[] = [];
  for (const raw of firstPage.split('\n').slice(0, 12)) {
    const line = raw.replace(/\s+/g, ' ').trim();
    if (!line || BOILERPLATE_LINE.test(line)) continue;
    if ((line.match(/\p{L}/gu) ?? []).length < 3) continue;
    if (line.split(' ').length <= MAX_HEADING_WORDS && line.length <= 120 && !readsAsSentence(line)) {
      out.push(line);
      if (out.length === 2) break;
      continue;
    }
    const first = line.split(/(?<=[.!?])\s+(?=\p{Lu})/u)[0];
    if (first !== line && first.split(' ').length <= MAX_HEADING_WORDS && !readsAsSentence(first)) {
      out.push(first.replace(/\.$/, ''));
    }
    break;
  }
  return out.join(' ');
}

/**
 * A line that ends like a sentence and has a sentence's share of function words (`The office wifi
 * password is ... .`) is body text; a heading rarely ends in a full stop (`Apple Inc.` has no
 * function word, `An Introduction to R` no full stop).
 */
function readsAsSentence(line: string): boolean {
  if (!/[.!?]$/.test(line)) return false;
  const words = line.toLowerCase().match(/[\p{L}'’]+/gu) ?? [];
  return words.length > 0 && words.filter((w) => FUNCTION_WORDS.has(w)).length / words.length >= 0.25;
}

const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}'’&-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;
const HAS_DIGIT = /\p{N}/u;
const HAS_LETTER = /\p{L}/u;

/** Words that are capitalised because of where they stand, not because they are names. */
const FUNCTION_WORDS = new Set(
  (
    'a an and are as at be but by for from has have he her his i if in into is it its of on or our she ' +
    'so that the their there these they this those to was we were what when where which who will with ' +
    'you your not no yes all any each other such than then also may can one two new see page none ' +
    'unknown n/a'
  ).split(' '),
);

/**
 * The last word of a form label (`Registration:`, `Flight Time:`). Only the last: in a form laid
 * out in columns the words before it may be the previous field's value (`Aircraft: Fisher Aero
 * Celebrity Aircraft Damage:`).
 */
const LABEL = /[\p{Lu}][\p{L}'’&/-]*\s*:/gu;

interface NameStats {
  /** Capitalised (or identifier) occurrences. */
  count: number;
  /** Pages it occurs on. */
  pages: number;
  /** Whether it occurs on the first page (where a document usually says what it is). */
  onFirstPage: boolean;
}

/**
 * Proper names and identifiers of a text, counted. A word counts as a name when most of its
 * occurrences are capitalised (so "The", or "pilot" capitalised at a sentence start, do not) and
 * it is mostly neither a form label (`Registration:`) nor a heading word (`Pilot Information`),
 * which a template repeats in every document; an identifier when it mixes letters and digits
 * (`N5921D`, `PA-22-150`, `10-Q`). Words in capitals only (`PILOT IN COMMAND`) count only when
 * short enough to be an acronym.
 */
export function nameCounts(pages: readonly string[]): Map<string, NameStats> {
  const cap = new Map<string, number>();
  const lower = new Map<string, number>();
  const structural = new Map<string, number>();
  const titleCase = new Set<string>();
  const pagesOf = new Map<string, Set<number>>();
  const surface = new Map<string, Map<string, number>>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  pages.forEach((text, p) => {
    for (const line of text.split('\n')) {
      const inStructure = headingOf(line) ? [line] : [...line.matchAll(LABEL)].map((m) => m[0]);
      for (const part of inStructure)
        for (const m of part.matchAll(TOKEN)) bump(structural, m[0].toLowerCase());
    }
    for (const m of text.matchAll(TOKEN)) {
      const w = m[0];
      const key = w.toLowerCase();
      if (key.length < 2 || FUNCTION_WORDS.has(key) || !HAS_LETTER.test(w)) continue;
      if (/^\p{Lu}/u.test(w) || HAS_DIGIT.test(w)) {
        bump(cap, key);
        if (/\p{Ll}/u.test(w) || w.length <= 5) titleCase.add(key);
        const forms = surface.get(key) ?? new Map<string, number>();
        bump(forms, w);
        surface.set(key, forms);
      } else bump(lower, key);
      const seen = pagesOf.get(key) ?? new Set<number>();
      seen.add(p);
      pagesOf.set(key, seen);
    }
  });
  const out = new Map<string, NameStats>();
  for (const [key, n] of cap) {
    const identifier = HAS_DIGIT.test(key);
    if (!identifier) {
      if (n < 4 * (lower.get(key) ?? 0) || !titleCase.has(key)) continue;
      if (2 * (structural.get(key) ?? 0) >= n) continue;
    }
    const forms = [...(surface.get(key) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]);
    const on = pagesOf.get(key) ?? new Set<number>();
    out.set(forms[0]?.[0] ?? key, { count: n, pages: on.size, onFirstPage: on.has(0) });
  }
  // A model number after a name (`Aerostar 601`, `Cessna 172`, `Windows 11`) identifies as much
  // as the name: it is kept as an identifier with the pair's counts.
  const names = new Set([...out.keys()].map((k) => k.toLowerCase()));
  const numbers = new Map<string, { count: number; pages: Set<number> }>();
  pages.forEach((text, p) => {
    for (const m of text.matchAll(NAME_NUMBER)) {
      if (!names.has(m[1].toLowerCase()) || HAS_DIGIT.test(m[1])) continue;
      const e = numbers.get(m[2]) ?? { count: 0, pages: new Set<number>() };
      e.count++;
      e.pages.add(p);
      numbers.set(m[2], e);
    }
  });
  for (const [n, e] of numbers)
    if (!out.has(n)) out.set(n, { count: e.count, pages: e.pages.size, onFirstPage: e.pages.has(0) });
  return out;
}

/** A name followed by a number on the same line. */
const NAME_NUMBER = /(?<![\p{L}\p{N}])(\p{Lu}[\p{L}'’-]*)[ \t]+(\p{N}+)(?![\p{L}\p{N}.,:/-])/gu;

/**
 * The document's context from its file name, metadata title and page texts. Names are ranked by
 * how often and on how many pages they occur (what runs through the body, not only the cover),
 * with one occurrence more for a name on the first page;
 * bare numbers are skipped, dates become day and month tokens.
 */
export function documentContext(
  input: { fileName: string; title?: string | null; pages: readonly string[] },
  o: DocumentContextOptions = {},
): DocumentContext {
  const maxTerms = o.maxTerms ?? 48;
  const maxDates = o.maxDates ?? 8;
  const fileWords = fileNameWords(input.fileName);
  const heading = usefulTitle(input.title) ?? firstHeading(input.pages[0] ?? '');
  // Questions name a filing by its company and period ("3M's FY2018 capital expenditure"), and its
  // cover's first heading is the regulator's name: the filing's metadata leads its searchable title.
  const filing = filingTitle(filingMetadata(input.pages));
  const title = [heading, fileWords].filter(Boolean).join(' | ');

  const pageCount = Math.max(1, input.pages.length);
  const names = [...nameCounts(input.pages)]
    .map(([name, s]) => ({
      name,
      score: (s.count + (s.onFirstPage ? 1 : 0)) * Math.sqrt(s.pages / pageCount),
    }))
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
    .slice(0, maxTerms)
    .map((n) => n.name);

  // Dates by how often they are mentioned, then by first mention (a document's own date comes early).
  const dateCounts = new Map<string, { n: number; first: number; tokens: string[] }>();
  let order = 0;
  for (const page of input.pages) {
    for (const tokens of dateMentions(page)) {
      if (!tokens.some((t) => t.length === 8)) continue; // a month alone is no date of the document
      const key = tokens.join(' ');
      const c = dateCounts.get(key) ?? { n: 0, first: order++, tokens };
      c.n++;
      dateCounts.set(key, c);
    }
  }
  const dates = [
    ...new Set(
      [...dateCounts.values()]
        .sort((a, b) => b.n - a.n || a.first - b.first)
        .slice(0, maxDates)
        .flatMap((d) => d.tokens),
    ),
  ];
  return { title, terms: [...names, ...dates].join(' '), keyTerms: names.slice(0, 8), filing };
}

/** The text handed to the embedder: context first (bounded), then the chunk's own text. */
export function embeddingText(context: DocumentContext, section: string, text: string): string {
  const head = [context.title, section, context.keyTerms.join(' ')].filter(Boolean).join(' | ').slice(0, 240);
  return head ? `${head}\n${text}` : text;
}
