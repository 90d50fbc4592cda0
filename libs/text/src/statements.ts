/**
 * The primary financial statements: the pages of a filing that hold them, and the statement a
 * question names. Analysts' figures live on these pages (revenue on the income statement, capital
 * expenditure on the cash flow statement), and filings title them in a few set ways whatever the
 * company: "Consolidated Statements of Operations", "Consolidated Balance Sheets", "Statement of
 * Cash Flows". Indexing labels a statement page's chunks with the statement's plain name; search
 * prefers those chunks when the question names the statement.
 */
import { isTableLine } from './table-lines';

export type StatementKind = 'income' | 'balance' | 'cash-flow' | 'equity';

/** The plain name indexing gives a statement page's chunks (searched with the section heading). */
export const STATEMENT_LABEL: Readonly<Record<StatementKind, string>> = {
  income: 'Income statement',
  balance: 'Balance sheet',
  'cash-flow': 'Cash flow statement',
  equity: 'Statement of shareholders equity',
};

/**
 * Titles as filings print them, letters only and lower case, so a title the PDF text breaks
 * (`Statement of Cash Flow s`, `Balance Shee t`) still matches. Comprehensive income on its own is
 * not the income statement; a title that names both operations and comprehensive income is.
 */
const PAGE_TITLES: ReadonlyArray<[StatementKind, RegExp]> = [
  ['cash-flow', /statements?of(?:consolidated)?cashflows?|cashflowsstatements?|cashflowstatements?/],
  ['balance', /balancesheets?|statements?of(?:consolidated)?financial(?:position|condition)/],
  [
    'income',
    /statements?of(?:consolidated)?(?:operations|income|earnings)(?!taxes)|incomestatements?|profitandloss/,
  ],
  [
    'equity',
    /statements?of(?:changesin)?(?:consolidated)?(?:share(?:holders|owners)|stockholders)?equity|(?:share(?:holders|owners)|stockholders)equitystatements?/,
  ],
];

/** A statement page's chunk section as indexing writes it: the statement's plain name first. */
export function statementSection(kind: StatementKind, section: string): string {
  return [STATEMENT_LABEL[kind], section].filter(Boolean).join(' > ');
}

/** Whether a chunk section (written by statementSection) is on a page of one of these statements. */
export function onStatement(section: string | undefined, kinds: readonly StatementKind[]): boolean {
  return !!section && kinds.some((k) => section.startsWith(STATEMENT_LABEL[k]));
}

/** The title is printed in the page's first lines (after a running header or the company name). */
const TITLE_LINES = 8;
/** A title is a short line; longer ones are sentences that mention a statement. */
const MAX_TITLE_CHARS = 100;
/** A statement page is mostly table rows; a page with fewer is prose about the statement. */
const MIN_TABLE_LINES = 8;

/**
 * A note's heading (`NOTE 7. Supplemental Balance Sheet Information`, `Note 4—`) or the running
 * header of the notes (`Notes to Consolidated Financial Statements`): a page under one is a note,
 * whatever statement its tables detail.
 */
const NOTE_HEADING = /^(?:note\s+(?:\d+|[a-z])\b|notes\s+to\b)/i;

function titleKinds(line: string): StatementKind[] {
  if (line.length > MAX_TITLE_CHARS) return [];
  const letters = line.toLowerCase().replace(/[^a-z]/g, '');
  // "Notes to Consolidated Financial Statements", an index line "... Statements of Income 56"
  if (letters.startsWith('notesto') || /\d\s*$/.test(line.replace(/\b(?:19|20)\d\d\s*$/, ''))) return [];
  // supplemental information about a statement ("Supplemental balance sheet information related to leases")
  if (letters.startsWith('supplement')) return [];
  return PAGE_TITLES.filter(([, re]) => re.test(letters)).map(([k]) => k);
}

/**
 * The statement a page holds: one statement's title among its first lines, and a body of table
 * rows. An index of the statements (several titles) or a page of prose about one is none.
 */
export function statementOfPage(text: string): StatementKind | undefined {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const head = lines.slice(0, TITLE_LINES);
  if (head.some((l) => NOTE_HEADING.test(l))) return undefined;
  const kinds = new Set(head.flatMap(titleKinds));
  if (kinds.size !== 1) return undefined;
  if (lines.filter(isTableLine).length < MIN_TABLE_LINES) return undefined;
  return [...kinds][0];
}

/** How questions name a statement: its title, its common names, its abbreviations. */
const QUESTION_NAMES: ReadonlyArray<[StatementKind, RegExp]> = [
  [
    'cash-flow',
    /\b(?:cash[-\s]?flows?\s+statements?|statements?\s+of\s+(?:consolidated\s+)?cash\s+flows?)\b/i,
  ],
  [
    'balance',
    /\b(?:balance\s+sheets?|statements?\s+of\s+(?:consolidated\s+)?financial\s+(?:position|condition))\b/i,
  ],
  [
    'income',
    /\b(?:income\s+statements?|statements?\s+of\s+(?:consolidated\s+)?(?:income|operations|earnings)|p\s?&\s?l\b|profit\s+(?:and|&)\s+loss(?:\s+statement)?)/i,
  ],
  [
    'equity',
    /\bstatements?\s+of\s+(?:changes\s+in\s+)?(?:share(?:holders|owners)['’]?|stockholders['’]?)?\s*equity\b/i,
  ],
];

/** The statements a question names, in the order the list above gives them. */
export function statementsNamed(question: string): StatementKind[] {
  return QUESTION_NAMES.filter(([, re]) => re.test(question)).map(([k]) => k);
}

/**
 * The statement an analyst reads a metric from, for questions that name the metric and not the
 * statement: margins, sales and earnings from the income statement; assets, liabilities, working
 * capital and PP&E from the balance sheet; capital expenditure and cash from operating, investing
 * or financing activities from the cash flow statement.
 */
const METRIC_STATEMENTS: ReadonlyArray<[StatementKind, RegExp]> = [
  [
    'cash-flow',
    /\b(?:capex|capital\s+expenditures?|free\s+cash\s+flows?|(?:operating|investing|financing)\s+activities|dividends?\s+paid)\b/i,
  ],
  [
    'balance',
    /\b(?:total\s+(?:current\s+)?(?:assets|liabilities)|current\s+(?:assets|liabilities)|(?:net\s+)?working\s+capital|quick\s+ratio|current\s+ratio|pp\s?&\s?e|ppne|property,?\s+plant\s+and\s+equipment|total\s+debt|inventor(?:y|ies))\b/i,
  ],
  [
    'income',
    /\b(?:(?:gross|operating|net\s+profit|profit|ebitda)\s+margins?|cogs|cost\s+of\s+(?:goods|products|sales)|net\s+(?:income|earnings)|(?:total\s+)?revenues?|net\s+sales|earnings\s+per\s+share|eps)\b/i,
  ],
];

/** The statements a question names, else those the metrics it names are read from. */
export function statementsAsked(question: string): StatementKind[] {
  const named = statementsNamed(question);
  return named.length ? named : METRIC_STATEMENTS.filter(([, re]) => re.test(question)).map(([k]) => k);
}
