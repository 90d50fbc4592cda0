/**
 * US state names and their postal codes. Addresses, filings and reports write `Tallahassee, FL`
 * where a question says "Tallahassee, Florida"; neither BM25 nor the answerer's term matching
 * connects the two. Queries get the code next to (search) or instead of (answer scoring) the name.
 */
const STATES: Record<string, string> = {
  alabama: 'AL', alaska: 'AK', arizona: 'AZ', arkansas: 'AR', california: 'CA', colorado: 'CO',
  connecticut: 'CT', delaware: 'DE', florida: 'FL', georgia: 'GA', hawaii: 'HI', idaho: 'ID',
  illinois: 'IL', indiana: 'IN', iowa: 'IA', kansas: 'KS', kentucky: 'KY', louisiana: 'LA',
  maine: 'ME', maryland: 'MD', massachusetts: 'MA', michigan: 'MI', minnesota: 'MN',
  mississippi: 'MS', missouri: 'MO', montana: 'MT', nebraska: 'NE', nevada: 'NV',
  'new hampshire': 'NH', 'new jersey': 'NJ', 'new mexico': 'NM', 'new york': 'NY',
  'north carolina': 'NC', 'north dakota': 'ND', ohio: 'OH', oklahoma: 'OK', oregon: 'OR',
  pennsylvania: 'PA', 'rhode island': 'RI', 'south carolina': 'SC', 'south dakota': 'SD',
  tennessee: 'TN', texas: 'TX', utah: 'UT', vermont: 'VT', virginia: 'VA', washington: 'WA',
  'west virginia': 'WV', wisconsin: 'WI', wyoming: 'WY', 'district of columbia': 'DC',
}; // prettier-ignore

// Longest names first, so "West Virginia" is not read as "Virginia".
const NAMES = Object.keys(STATES).sort((a, b) => b.length - a.length);
const PATTERN = new RegExp(`\\b(${NAMES.map((n) => n.replace(/ /g, '\\s+')).join('|')})\\b`, 'gi');

/** The postal codes of the US states the text names, in order, without duplicates. */
export function statePostalCodes(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(PATTERN)) out.add(STATES[m[1].toLowerCase().replace(/\s+/g, ' ')]);
  return [...out];
}

/** The text with every US state name replaced by its postal code. */
export function abbreviateStates(text: string): string {
  return text.replace(PATTERN, (name) => STATES[name.toLowerCase().replace(/\s+/g, ' ')]);
}
