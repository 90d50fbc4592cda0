/**
 * What a filing says about itself on its first pages: the company, the form and the period it
 * reports on. Read at indexing time (document metadata, shown in /documents/metadata) and written
 * into the document's context, so a question that names a company and a fiscal year or quarter
 * ("FY2018", "Q2 of FY2024") is routed to that filing among several of the same company.
 */
export interface FilingMetadata {
  /** The registrant as the cover names it (`BEST BUY CO., INC.`, `Johnson & Johnson`). */
  company?: string;
  /**
   * The trading symbol of the registrant's common stock (`JNJ`, `MMM`), from the cover's table of
   * registered securities or an earnings release's `(NYSE: JNJ)`: analysts name companies by it.
   */
  ticker?: string;
  /** `10-K`, `10-Q`, `8-K`, `20-F`, ... or `earnings release`. */
  form?: string;
  /** End of the period reported on (10-K, 10-Q) or the date of the report (8-K), ISO `YYYY-MM-DD`. */
  periodEnd?: string;
  /** The fiscal year the filing reports on (a 10-K: the year its fiscal year ends). */
  fiscalYear?: number;
  /** The fiscal quarter (1-4) of a quarterly report, where the filing says which it is. */
  fiscalQuarter?: number;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DATE = String.raw`([A-Z][a-z]+)\.?\s+(\d{1,2}),?\s+((?:19|20)\d{2})`;
const FORM = /\bFORM\s+(10-K(?:T|405)?|10-Q|8-K|20-F|40-F|6-K|S-1|S-4|DEF 14A)\b/i;
const PERIOD = new RegExp(
  String.raw`for\s+the\s+(?:fiscal\s+)?(year|quarterly\s+period|quarter)\s+ended:?\s+${DATE}`,
  'i',
);
const REPORT_DATE = new RegExp(String.raw`Date of report[^:]{0,60}:\s*${DATE}`, 'i');
const REGISTRANT = /^\s*\(Exact name of (?:the )?registrant as specified in its charter\)/i;
const ORDINAL: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4 };
/** "second quarter of fiscal 2024", "Q2 fiscal 2024", "fiscal 2024 second quarter". */
const FISCAL_QUARTER =
  /\b(?:(first|second|third|fourth)\s+quarter|q([1-4]))\s+(?:of\s+)?(?:fiscal(?:\s+year)?\s*|fy\s?)((?:19|20)\d{2})\b/i;
/** An earnings release: "announced results for fourth-quarter and full year 2022". */
const RESULTS =
  /\b(?:announced|reports?|reported)\b[^.]{0,60}?\b(first|second|third|fourth)[- ]quarter\b[^.]{0,40}?\b((?:19|20)\d{2})\b/i;
/**
 * A cover's row of registered common stock, its symbol before the exchange: `Common Stock, Par
 * Value $1.00 JNJ New York Stock Exchange`, `Class B Common Stock NKE New York Stock Exchange`,
 * `Common stock, $0.00000625 par value per share MSFT NASDAQ`. (Covers since 2019 carry it.)
 */
const COMMON_STOCK_ROW =
  /^[^\n]*\bCommon (?:[Ss]tock|[Ss]hares)\b[^\n]*?\s([A-Z]{1,5}(?:\.[A-Z])?)\s+(?:The\s+)?(?:New York Stock Exchange|NYSE|Nasdaq|NASDAQ|Chicago Stock Exchange)\b/m;
/** An earnings release's `(NYSE: JNJ)`. */
const EXCHANGE_SYMBOL = /\((?:NYSE|NASDAQ|Nasdaq|NYSE American)\s*:\s*([A-Z]{1,5}(?:\.[A-Z])?)\s*\)/;
const TICKER_NAME =
  /(?:^|[–—]\s*|\)\s*[–—-]\s*)(\p{Lu}[\p{L}&.,' ]{1,60}?)\s*\((?:NYSE|NASDAQ|Nasdaq|NYSE American)\s*:/u;

function isoDate(month: string, day: string, year: string): string | undefined {
  const m = MONTHS.findIndex((x) => x.startsWith(month.toLowerCase().slice(0, 3)));
  if (m < 0) return undefined;
  return `${year}-${String(m + 1).padStart(2, '0')}-${day.padStart(2, '0')}`;
}

/** A cover line that is no name: the file number, the period, a rule, a parenthesised caption. */
const NOT_A_NAME = /commission file|transition period|report pursuant|fiscal year|period ended|^[-_]+$|^\(/i;

/**
 * The registrant's name: the line above "(Exact name of registrant as specified in its charter)",
 * or, on covers without that caption, the line in capitals after the commission file number.
 */
function registrant(lines: string[]): string | undefined {
  const name = (l: string | undefined) => {
    const t = (l ?? '').replace(/\s+/g, ' ').trim();
    return /\p{L}{2}/u.test(t) && !NOT_A_NAME.test(t) ? t : undefined;
  };
  const at = lines.findIndex((l) => REGISTRANT.test(l));
  for (let i = at - 1; at > 0 && i >= Math.max(0, at - 3); i--) {
    const n = name(lines[i]);
    if (n) return n;
  }
  const file = lines.findIndex((l) => /commission file number/i.test(l));
  const next = file >= 0 ? name(lines[file + 1]) : undefined;
  return next && next === next.toUpperCase() ? next : undefined;
}

/**
 * The fiscal year a period ending on `date` is named for: the year it ends in, except a 52/53-week
 * year that ends in the first days of January (`January 1, 2023` ends fiscal 2022).
 */
function fiscalYearOf(date: string): number {
  const year = Number(date.slice(0, 4));
  return date.slice(5, 7) === '01' && Number(date.slice(8, 10)) <= 7 ? year - 1 : year;
}

/**
 * The filing metadata of a document, from its first pages; empty for a document that is no
 * filing (a manual, a report of another kind).
 */
export function filingMetadata(pages: readonly string[]): FilingMetadata {
  const head = pages.slice(0, 3).join('\n');
  // Captions run over lines (`FOR\nTHE FISCAL YEAR ENDED`, `fourth-\nquarter`).
  const flat = (t: string) => t.replace(/-\n/g, '-').replace(/\s+/g, ' ');
  const out: FilingMetadata = {};
  const form = FORM.exec(pages.slice(0, 2).join('\n'));
  if (form) {
    out.form = form[1].toUpperCase();
    out.company = registrant(head.split('\n'));
    const symbol = COMMON_STOCK_ROW.exec(head) ?? EXCHANGE_SYMBOL.exec(head);
    if (symbol) out.ticker = symbol[1];
    const p = PERIOD.exec(flat(head)) ?? REPORT_DATE.exec(flat(head));
    const date = p ? isoDate(p[p.length - 3], p[p.length - 2], p[p.length - 1]) : undefined;
    if (date) out.periodEnd = date;
    if (date && out.form !== '8-K') out.fiscalYear = fiscalYearOf(date);
  } else {
    const r = RESULTS.exec(flat(pages[0] ?? ''));
    if (!r) return out;
    out.form = 'earnings release';
    out.fiscalQuarter = ORDINAL[r[1].toLowerCase()];
    out.fiscalYear = Number(r[2]);
    const t = TICKER_NAME.exec(flat(pages[0] ?? ''));
    if (t) out.company = t[1].trim();
    const symbol = EXCHANGE_SYMBOL.exec(flat(pages[0] ?? ''));
    if (symbol) out.ticker = symbol[1];
  }
  if (out.form === '10-Q') {
    const q = FISCAL_QUARTER.exec(flat(pages.slice(0, 8).join('\n')));
    if (q) {
      out.fiscalQuarter = q[1] ? ORDINAL[q[1].toLowerCase()] : Number(q[2]);
      out.fiscalYear = Number(q[3]);
    }
  }
  return out;
}

/**
 * The words a filing's metadata adds to its document's title, as questions name it: the company
 * and its trading symbol, the form and its kind (`10-K annual report`), the fiscal year as
 * `FY2018` and `fiscal 2018`, the quarter as `Q2 FY2024`. Empty for no filing.
 */
export function filingTitle(m: FilingMetadata): string {
  const kind: Record<string, string> = {
    '10-K': 'annual report',
    '10-Q': 'quarterly report',
    '8-K': 'current report',
    '20-F': 'annual report',
  };
  const parts = [
    m.company,
    m.ticker,
    m.form ? `${m.form}${kind[m.form] ? ` ${kind[m.form]}` : ''}` : undefined,
    m.fiscalYear ? `FY${m.fiscalYear} fiscal ${m.fiscalYear}` : undefined,
    m.fiscalQuarter && m.fiscalYear ? `Q${m.fiscalQuarter} FY${m.fiscalYear}` : undefined,
    m.periodEnd ? `period ended ${m.periodEnd}` : undefined,
  ];
  return parts.filter(Boolean).join(' | ');
}

/**
 * A question's periods written as filings' titles write them, added after the question: `FY
 * 2022`, `fiscal year 2022` -> `FY2022`; `FY20` -> `FY2020`; `Q2 of FY2024`, `Q2'2023`, `Q22023`,
 * `second quarter of 2023` -> `Q2 FY2024` / `Q2 FY2023`. The question is kept as it was; the
 * period words only add terms a filing's title holds.
 */
export function withPeriodTerms(text: string): string {
  const added = new Set<string>();
  const fy = (y: string) => (y.length === 2 ? `20${y}` : y);
  for (const m of text.matchAll(/\b(?:FY|fiscal(?:\s+year)?)\s?'?((?:19|20)?\d{2})\b/gi))
    if (m[1].length === 4 || /^fy/i.test(m[0])) added.add(`FY${fy(m[1])}`);
  const quarter =
    /\b(?:Q([1-4])|(first|second|third|fourth)\s+quarter)(?:\s+of)?\s*(?:FY|fiscal(?:\s+year)?\s*)?\s?['’]?((?:19|20)\d{2}|\d{2})\b/gi;
  for (const m of text.matchAll(quarter)) {
    const q = m[1] ?? String(ORDINAL[m[2].toLowerCase()]);
    added.add(`Q${q} FY${fy(m[3])}`);
  }
  return added.size ? `${text} ${[...added].join(' ')}` : text;
}

/** A fiscal-year term (a stem, as analyseQuery and a filing's title give it: `fy2021`). */
export function isFiscalYearTerm(t: string): boolean {
  return /^fy(?:19|20)\d{2}$/.test(t);
}

/** A fiscal period as a question's words write it: `fy2018`, `fy18`, `q2`, `q22023`. */
export function isFiscalPeriodTerm(t: string): boolean {
  return /^(?:fy|q[1-4])(?:(?:19|20)?\d{2})?$/.test(t);
}

/**
 * The fiscal years a question names, as the terms filing titles carry (`fy2023`): "FY2023",
 * "fiscal year 2023", and the year of a quarter ("Q2 of FY2024", "Q22023", "Q2'2023").
 */
export function fiscalYearsNamed(text: string): string[] {
  const years = [...withPeriodTerms(text).matchAll(/\bFY((?:19|20)\d{2})\b/g)].map((m) => `fy${m[1]}`);
  return [...new Set(years)];
}

/** Whether a query asks for the newest filing or period: "the latest 10-Q", "most recent quarter". */
export function asksLatest(text: string): boolean {
  return /\b(?:latest|most\s+recent|newest)\b/i.test(text);
}

const FORM_NAMES: ReadonlyArray<[string, RegExp]> = [
  ['10-K', /\b(?:10-?K|annual\s+report)\b/i],
  ['10-Q', /\b(?:10-?Q|quarterly\s+report)\b/i],
  ['8-K', /\b(?:8-?K|current\s+report)\b/i],
];

/** The SEC form a query names (`10-Q`, "annual report" as `10-K`), if one. */
export function formNamed(text: string): string | undefined {
  return FORM_NAMES.find(([, re]) => re.test(text))?.[0];
}

/** The form a title written by filingTitle states (its `10-K annual report` part). */
export function formOfTitle(title: string): string | undefined {
  return /(?:^|\|\s*)(10-K|10-Q|8-K|20-F)\b/.exec(title)?.[1];
}

/** Words every company name may carry, which name no company: `THE BOEING COMPANY`, `PFIZER INC.`. */
const LEGAL_FORM_WORDS =
  /\b(?:the|company|corporation|corp|incorporated|inc|co|ltd|limited|plc|group|holdings?|llc)\b\.?/gi;

/**
 * The company a title written by filingTitle names, without the words every company name may carry
 * (`BOEING`, `Johnson & Johnson`), and its ticker; undefined for a title of no filing.
 */
export function companyOfTitle(title: string): { name: string; ticker?: string } | undefined {
  const parts = title.split(' | ');
  const form = parts.findIndex((p) => formOfTitle(p) !== undefined || p === 'earnings release');
  if (form <= 0) return undefined;
  const name = parts[0]
    .replace(LEGAL_FORM_WORDS, ' ')
    .replace(/[\s,]+/g, ' ')
    .trim();
  const ticker = form === 2 && /^[A-Z]{1,5}(?:\.[A-Z])?$/.test(parts[1]) ? parts[1] : undefined;
  return name ? { name, ...(ticker ? { ticker } : {}) } : undefined;
}

/** The period end (`YYYY-MM-DD`) a title written by filingTitle states. */
export function periodEndOfTitle(title: string): string | undefined {
  return /\bperiod ended (\d{4}-\d{2}-\d{2})\b/.exec(title)?.[1];
}
