/**
 * The line items analysts ask for by one name and filings print under another: "capital
 * expenditure" is the cash flow row `Purchases of property, plant and equipment`, "revenue" the
 * income statement's `Net sales`, "COGS" its `Cost of sales`, "net PPNE" the balance sheet's
 * `Property, plant and equipment, net`. The captions are those of US GAAP
 * filings of any company (the SEC's financial statement taxonomy names them alike), so a row whose
 * label is one of them answers a question that asks for the item, whatever word the question uses.
 */
import { contentStems } from './terms';

export type LineItem =
  | 'capex'
  | 'revenue'
  | 'cost-of-sales'
  | 'net-income'
  | 'operating-income'
  | 'operating-cash-flow'
  | 'depreciation'
  | 'dividends'
  | 'net-ppe';

/** How a question asks for the item, and how a statement row's label prints it (at its start). */
const ITEMS: ReadonlyArray<[LineItem, RegExp, RegExp]> = [
  [
    'capex',
    /\b(?:capex|capital\s+expenditures?|capital\s+spending)\b/i,
    /^(?:(?:purchases?|acquisitions?|additions?)\s+(?:of|to)|payments?\s+for(?:\s+(?:the\s+)?(?:purchase|acquisition)\s+of)?|expenditures?\s+for|investments?\s+in)\s+(?:property|plant|premises|fixed\s+assets|capital\s+assets|pp\s?&\s?e)|^capital\s+expenditures?/i,
  ],
  [
    'revenue',
    /\b(?:total\s+|net\s+)?(?:revenues?|net\s+sales|top[-\s]line)\b/i,
    /^(?:total\s+)?(?:net\s+)?(?:revenues?|sales)(?:\s*,\s*net)?\s*(?::|$|\d|\$|\()/i,
  ],
  [
    'cost-of-sales',
    /\b(?:cogs|cost\s+of\s+(?:goods\s+sold|sales|revenues?|products\s+sold))\b/i,
    /^(?:total\s+)?cost\s+of\s+(?:goods\s+sold|sales|revenues?|products\s+sold|merchandise\s+sold)/i,
  ],
  [
    'net-income',
    /\bnet\s+(?:income|earnings|profit)\b/i,
    /^net\s+(?:income|earnings)(?:\s*\(loss\))?(?:\s+attributable\s+to\s+[\w\s.,&'’]{0,40})?\s*(?::|$|\d|\$|\()/i,
  ],
  [
    'operating-income',
    /\b(?:operating\s+(?:income|profit)|income\s+from\s+operations|ebit)\b/i,
    /^(?:operating\s+(?:income|profit)|(?:income|earnings)\s+from\s+operations)(?:\s*\(loss\))?/i,
  ],
  [
    'operating-cash-flow',
    /\b(?:cash\s+(?:flows?\s+)?from\s+operations|operating\s+cash\s+flows?|cash\s+(?:provided|generated)\s+by\s+operating\s+activities|cash\s+flows?\s+from\s+operating\s+activities)\b/i,
    /^(?:net\s+)?cash\s+(?:provided|generated|from)\b.{0,30}\boperating\s+activities/i,
  ],
  ['depreciation', /\b(?:depreciation|d\s?&\s?a|ebitda)\b/i, /^depreciation\b/i],
  [
    'dividends',
    /\bdividends?\b/i,
    /^(?:cash\s+)?dividends?\s+(?:paid|declared)|^payments?\s+of\s+(?:cash\s+)?dividends?/i,
  ],
  [
    'net-ppe',
    /\b(?:net\s+)?(?:ppne|pp\s?&\s?e|ppe|fixed\s+assets)\b|\bnet\s+property,?\s+plant,?\s+(?:and|&)\s+equipment\b/i,
    /^(?:net\s+property(?:,?\s+plant)?,?\s+(?:and|&)\s+equipment|property(?:,?\s+plant)?,?\s+(?:and|&)\s+equipment(?:\s*\(pp\s?&\s?e\))?\s*(?:[-–—,]\s*)?net\b)/i,
  ],
];

export interface LineItemAsked {
  readonly item: LineItem;
  /** Stems of the words the question names it with (what a row of the item is taken to say). */
  readonly stems: readonly string[];
}

/** The line items a question asks for, with the stems of the words it uses for each. */
export function lineItemsAsked(question: string): LineItemAsked[] {
  const out: LineItemAsked[] = [];
  for (const [item, asked] of ITEMS) {
    const m = asked.exec(question);
    if (m) out.push({ item, stems: contentStems(m[0]) });
  }
  return out;
}

/** The line item a table row's label prints, if one of those above. */
export function lineItemOfRow(row: string): LineItem | undefined {
  const label = row.trim();
  return ITEMS.find(([, , printed]) => printed.test(label))?.[0];
}
