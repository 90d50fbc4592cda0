import { companyOfTitle, words } from '@docqa/text';
import type { Passage } from '../generation.port';
import type { Candidate } from './sentence-scoring';

/** Which passages are filings of a company the question names, and which are another company's. */
export interface CompaniesNamed {
  /** A filing of a company the question names. */
  named(p: Passage): boolean;
  /** A filing of a company the question does not name (a document that is no filing is neither). */
  other(p: Passage): boolean;
  /** Whether any passage is a filing of a company the question names. */
  found: boolean;
}

/**
 * The companies a question names among the filings of the passages (their titles, libs/text
 * companyOfTitle), as analysts write them: by the first word of the name, capitalised (`Boeing`,
 * `Verizon` for Verizon Communications, `3M`; "performed best" names no Best Buy), or by the
 * ticker written with capitals in any case (`JnJ` for JNJ; "Cost of sales" names no COST).
 */
export function companiesNamed(passages: readonly Passage[], question: string): CompaniesNamed {
  const tokens = question.match(/[\p{L}\p{N}]*\p{Lu}[\p{L}\p{N}]*/gu) ?? [];
  const capitalised = new Set(tokens.map((t) => t.toLowerCase()));
  const tickers = new Set(
    tokens.filter((t) => (t.match(/\p{Lu}/gu) ?? []).length > 1).map((t) => t.toLowerCase()),
  );
  const named = new Map<Passage, boolean>();
  for (const p of passages) {
    const company = companyOfTitle(p.title ?? '');
    if (!company) continue;
    const first = words(company.name)[0];
    const ticker = company.ticker?.toLowerCase();
    named.set(p, (!!first && capitalised.has(first)) || (!!ticker && tickers.has(ticker)));
  }
  return {
    named: (p) => named.get(p) === true,
    other: (p) => named.get(p) === false,
    found: [...named.values()].includes(true),
  };
}

/**
 * The candidates (best first) of the named companies' filings and of documents that are no
 * filings, when a named company's filing says something besides its names: another company's
 * filing prints the same captions ("Property, plant and equipment - net") and can score as well or
 * better, but it answers for another company.
 */
export function fromNamedCompanies(ranked: Candidate[], companies: CompaniesNamed): Candidate[] {
  if (!ranked.some((c) => companies.named(c.passage) && c.score > c.named)) return ranked;
  return ranked.filter((c) => !companies.other(c.passage));
}
