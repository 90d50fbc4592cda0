/**
 * Lines of statements and tables as extracted PDF text writes them: one printed row per line, a
 * label followed by its figures (`Purchases of property, plant and equipment (PP&E) (1,577)
 * (1,373) (1,420)`), under a header line of periods (`(Millions) 2018 2017 2016`). Chunking keeps
 * such rows whole and carries the header into every chunk of the table; the extractive answerer
 * takes a row as a candidate answer and quotes it with its header's periods.
 */

/** One figure of a row: an amount, a percentage, a negative in parentheses, or a dash for nil. */
const FIGURE = /^(?:\(?[-−–]?\$?\d[\d,]*(?:\.\d+)?%?\)?%?|[-—–]{1,2}|n\/?m|nm)$/i;
/** A currency sign standing alone before its figure (`$ 5,363`). */
const CURRENCY = /^[$€£¥]$/;
/** A year of a period header. */
const YEAR = /^\(?(?:FY|fy)?'?((?:19[89]|20[0-4])\d)\)?,?$/;
const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const MONTH_DAY = new RegExp(`\\b${MONTH}\\.?\\s+\\d{1,2},?`, 'gi');
const MONTH_END = new RegExp(`\\b${MONTH}\\.?$`, 'i');
/** A date of a header (`July 29, 2023`): month, day and year. */
const DATE = new RegExp(`\\b(${MONTH})\\.?\\s+(\\d{1,2}),?\\s+((?:19[89]|20[0-4])\\d)\\b`, 'gi');

export interface TableRow {
  /** The row's label, as printed. */
  label: string;
  /** Its figures, left to right, currency signs joined to their amount (`$5,363`). */
  figures: string[];
}

/** A row's figures need at least this many columns unless the one figure is an amount (`$`, `1,234`). */
const MIN_FIGURES = 2;
/** A label is a few words, never a paragraph. */
const MAX_LABEL_CHARS = 160;

/**
 * The label and figures of a table row, or undefined for any other line. A row ends in at least
 * two figures (or one written as an amount: `$ 812`, `1,204`, `(35)`), its label has letters, and
 * a year-only line is a header, not a row.
 */
export function tableRow(line: string): TableRow | undefined {
  if (tableHeader(line)) return undefined;
  const tokens = line.trim().split(/\s+/);
  const figures: string[] = [];
  let i = tokens.length - 1;
  for (; i >= 0; i--) {
    const t = tokens[i];
    if (CURRENCY.test(t)) {
      if (figures.length) figures[0] = `${t}${figures[0]}`;
      continue;
    }
    if (!FIGURE.test(t)) break;
    figures.unshift(t);
  }
  const label = tokens
    .slice(0, i + 1)
    .join(' ')
    .replace(/[\s$:]+$/, '');
  if (!/\p{L}{2}/u.test(label) || label.length > MAX_LABEL_CHARS) return undefined;
  const amounts = figures.filter((f) => /\d/.test(f));
  if (amounts.length === 0) return undefined;
  if (figures.length < MIN_FIGURES && !/[$€£¥,()]|\.\d/.test(figures[0])) return undefined;
  // A label that ends in a preposition or article is a sentence that ends in a number ("in 2018").
  if (/\b(?:in|of|on|at|to|by|for|from|the|a|an|and|or|than|page|pages|see|item|note)$/i.test(label))
    return undefined;
  // A label that ends in a month is a date caption (`Year Ended May 31,`, `August 29,`): its
  // "figure" is the day.
  if (MONTH_END.test(label)) return undefined;
  return { label, figures };
}

/**
 * The periods of a table's header line (`(Millions) 2018 2017 2016`, `Years ended December 31,
 * 2018 2017`, `Fiscal 2019 2018`), left to right, or undefined when the line is no such header: it
 * names two or more years and no other figure, and few words. The periods are the years, or the
 * dates when two columns share a year.
 */
export function tableHeader(line: string): string[] | undefined {
  const tokens = line.replace(MONTH_DAY, ' ').trim().split(/\s+/).filter(Boolean);
  const years: string[] = [];
  let words = 0;
  for (const t of tokens) {
    const y = YEAR.exec(t);
    if (y) years.push(y[1]);
    else if (/\d/.test(t)) return undefined;
    else words++;
  }
  if (years.length < 2 || words > 8) return undefined;
  // Columns of one year (a quarter's end beside the fiscal year's: `July 29, 2023 January 28,
  // 2023 July 30, 2022`) are told apart by their dates, as printed.
  if (new Set(years).size < years.length) {
    const dates = [...line.matchAll(DATE)].map(([, month, day, year]) => `${month} ${day}, ${year}`);
    if (dates.length === years.length) return dates;
  }
  return years;
}

/** Whether a line is part of a table: a row or a header of periods. */
export function isTableLine(line: string): boolean {
  return !!tableRow(line) || !!tableHeader(line);
}

/**
 * A row quoted with its header's periods: `Purchases of PP&E: 2018 (1,577), 2017 (1,373), 2016
 * (1,420)` when the row has one figure per period, else the label and its figures as printed.
 */
export function quoteRow(row: TableRow, periods?: readonly string[]): string {
  if (periods && periods.length === row.figures.length)
    return `${row.label}: ${row.figures.map((f, i) => `${periods[i]} ${f}`).join(', ')}`;
  return `${row.label}: ${row.figures.join(' ')}`;
}

/**
 * The header line that applies to `offset` in `text`: the last header of periods before it, as long
 * as every line between them belongs to the table (rows, or short sub-headings such as `Cash Flows
 * from Investing Activities`); undefined when prose came in between or there is none.
 */
export function headerAbove(text: string, offset: number): string | undefined {
  const lines = text.slice(0, offset).split('\n');
  // The line `offset` falls in is the chunk's own first line, not one above it.
  if (!text.slice(0, offset).endsWith('\n')) lines.pop();
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (!line) continue;
    if (tableHeader(line)) return line;
    if (tableRow(line) || line.length <= SUBHEADING_CHARS) continue;
    return undefined;
  }
  return undefined;
}

/** A line this short inside a table is a sub-heading or a wrapped label, not prose. */
const SUBHEADING_CHARS = 90;

/**
 * The table rows of a text, each quoted with the periods of the header it stands under (`Purchases
 * of PP&E: 2018 (1,577), 2017 (1,373)`), keyed by the row's line with its spaces collapsed. A row
 * under no header, or past prose that ended its table, is quoted as its label and figures.
 */
export function rowQuotes(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let periods: string[] | undefined;
  // Lines since the last row: a header of dates the PDF text broke over lines (`August 29,` /
  // `2021 August 30,` / `2020`) is read from them joined.
  const since: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+/g, ' ').trim();
    if (!line) continue;
    const header = tableHeader(line) ?? brokenHeader(since, line);
    if (header) {
      periods = header;
      since.length = 0;
      continue;
    }
    const row = tableRow(line);
    if (row) {
      out.set(line, quoteRow(row, periods));
      since.length = 0;
    } else {
      if (line.length > SUBHEADING_CHARS) periods = undefined;
      since.push(line);
      if (since.length >= BROKEN_HEADER_LINES) since.shift(); // brokenHeader reads the last two
    }
  }
  return out;
}

/** Lines of a header broken over lines are few and short. */
const BROKEN_HEADER_LINES = 3;

/** The periods of a header whose last line is `line` and whose first lines end `since`. */
function brokenHeader(since: readonly string[], line: string): string[] | undefined {
  for (let k = 1; k < BROKEN_HEADER_LINES && k <= since.length; k++) {
    const lines = since.slice(-k);
    if (lines.some((l) => l.length > SUBHEADING_CHARS)) return undefined;
    const header = tableHeader([...lines, line].join(' '));
    if (header) return header;
  }
  return undefined;
}
