import { dateTokens, withoutDates } from './date-tokens';
import { abbreviateStates } from './place-names';
import { contentStems } from './terms';

/** A dotted, colon, underscore or slash compound: `page.margin.top`, `mnesia:create_table/2`, `max_connections`. */
const COMPOUND = /[\p{L}\p{N}_]+(?:[.:_/][\p{L}\p{N}_]+)+/gu;

/**
 * Compound identifiers as one token each (`=page.margin.top`), besides their words: a question that
 * names `page.margin.top` asks about that parameter, and `body.margin.top` shares its words, not
 * its name. On the query side only the question's own count (QueryAnalysis.identifiers): a name
 * the conversation brought in is context, and weighed as a whole it outweighed what the follow-up asks.
 */
export function identifierTokens(text: string): string[] {
  return (text.toLowerCase().match(COMPOUND) ?? [])
    .filter((t) => /\p{L}/u.test(t) && /[\p{L}\p{N}]{2}/u.test(t)) // not `e.g`, `0.5`
    .map((t) => `=${t}`);
}

/**
 * A query's stems: its dates as tokens only (their words would count twice), US state names as
 * their postal codes (documents write `Elyria, OH`), no "how many", the rest as content stems.
 */
export function queryStems(text: string): string[] {
  const asked = abbreviateStates(withoutDates(text))
    .replace(HOW_MUCH, ' ')
    .replace(HOW_ATTRIBUTE, (_m, adjective: string) => ` ${ATTRIBUTE_OF[adjective.toLowerCase()]} `);
  return [...contentStems(asked), ...dateTokens(text)];
}

/**
 * "How old", "how far", ... ask for an attribute that documents label with its noun (`Age: 17`,
 * `Distance: 3 miles`); the adjective is rarely written beside the value.
 */
const ATTRIBUTE_OF: Record<string, string> = {
  old: 'age',
  far: 'distance',
  fast: 'speed',
  tall: 'height',
  high: 'height',
  heavy: 'weight',
  deep: 'depth',
  wide: 'width',
};
const HOW_ATTRIBUTE = /\bhow (old|far|fast|tall|high|heavy|deep|wide)\b/gi;

/** "How many" and "how much" ask for a quantity; "many" is not what the answer is about. */
const HOW_MUCH = /\bhow (many|much)\b/gi;
