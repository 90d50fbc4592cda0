import { asksLatest, formNamed, formOfTitle, namesIn, periodEndOfTitle } from '@docqa/text';

/** A document whose context matches the query, best first. */
export interface DocumentHit {
  documentId: string;
  score: number;
  /** The document's searchable title (a filing's company, form and period lead it). */
  title?: string;
}

export interface RoutingOptions {
  /**
   * Weight of the routed legs in the fusion, convex or RRF (the unrestricted BM25 leg has 1;
   * docs/search-engine.md); 0 turns routing off.
   */
  weight: number;
  /** A document is routed to when its context score is at least this share of the best. */
  share: number;
  /** Most documents routed to. */
  maxDocuments: number;
}

export const DEFAULT_ROUTING: RoutingOptions = { weight: 1, share: 0.6, maxDocuments: 4 };

/**
 * The documents a query names: those whose context score comes close to the best one. When
 * more than `maxDocuments` come close, the query names nothing that tells documents apart
 * (or names something most of them share), and there is no routing.
 */
export function routedDocuments(hits: DocumentHit[], o: RoutingOptions): string[] {
  if (hits.length === 0 || !(hits[0].score > 0)) return [];
  // A document being re-indexed has a chunk 0 in two generations: count it once.
  const close = [...new Set(hits.filter((h) => h.score >= o.share * hits[0].score).map((h) => h.documentId))];
  return close.length > o.maxDocuments ? [] : close;
}

/** A fiscal period as filings' titles write it (libs/text filingTitle): `FY2022`, `Q2 FY2023`. */
const TITLE_PERIOD = /\b(?:Q[1-4]\s+)?FY(?:19|20)\d{2}\b/g;

/**
 * The words of a query that name documents: its names (libs/text namesIn: `JnJ`, `Boeing`) and
 * its fiscal periods as filings' titles write them (the query's periods already in that form:
 * withPeriodTerms). Empty when it writes none. When the whole query comes close to too many
 * documents (its other words, `inventory`, `turnover`, run through most of their contexts),
 * routing tries these alone: "Roughly how many times has JnJ sold its inventory in FY2022?" names
 * the filings of JnJ for FY2022, whatever else the contexts share.
 */
export function namingWords(text: string): string {
  return [...new Set([...namesIn(text), ...(text.match(TITLE_PERIOD) ?? [])])].join(' ');
}

/**
 * The routed documents once the days a query names are taken into account. A day is an identifier
 * of the documents that hold it, but in the context match of the whole query its one token weighs
 * no more than a word the query shares with many documents ("accidents", "December"), so the
 * documents holding the query's days (`dated`, found by their day tokens alone) are routed to as
 * well: those of the context match that hold the day when there are any, else both.
 */
export function withDays(routed: string[], dated: string[]): string[] {
  if (dated.length === 0) return routed;
  const both = routed.filter((d) => dated.includes(d));
  return both.length ? both : [...new Set([...routed, ...dated])];
}

/**
 * Diversity across documents: at most `perDocument` chunks of one document in a first pass
 * over the ranking, the rest after them in their order. List and compare questions need their
 * passages from several documents, not the top pages of one.
 */
export function diversify<T>(items: readonly T[], documentOf: (item: T) => string, perDocument: number): T[] {
  const count = new Map<string, number>();
  const first: T[] = [];
  const rest: T[] = [];
  for (const item of items) {
    const d = documentOf(item);
    const n = count.get(d) ?? 0;
    count.set(d, n + 1);
    (n < perDocument ? first : rest).push(item);
  }
  return [...first, ...rest];
}

/**
 * For a query that asks for the latest filing ("the latest 10-Q", "most recent annual report"):
 * among the documents whose context comes close to the best (`share`, however many), those of
 * the form it names, the one(s) with the latest period end their titles state (libs/text
 * filing.ts). Periods, not file names, say which is latest. Undefined when the query asks no such
 * thing or no close document states a period.
 */
export function latestDocuments(text: string, hits: DocumentHit[], o: RoutingOptions): string[] | undefined {
  if (!asksLatest(text) || hits.length === 0 || !(hits[0].score > 0)) return undefined;
  const form = formNamed(text);
  const dated = hits
    .filter((h) => h.score >= o.share * hits[0].score)
    .map((h) => ({
      id: h.documentId,
      period: periodEndOfTitle(h.title ?? ''),
      form: formOfTitle(h.title ?? ''),
    }))
    .filter((d) => d.period && (!form || d.form === form));
  if (dated.length === 0) return undefined;
  const latest = dated.reduce((m, d) => (d.period! > m ? d.period! : m), '');
  return [...new Set(dated.filter((d) => d.period === latest).map((d) => d.id))];
}
