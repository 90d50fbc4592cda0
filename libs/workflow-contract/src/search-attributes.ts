import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Search attributes on every indexing workflow, registered on the namespace so operators find runs
 * by tenant. The embedded dev server, test/infra and the compose registration script (through the
 * generated docker/temporal/search-attributes.txt, `npm run contract:generate`) register these.
 */
export const SEARCH_ATTRIBUTE_KEYS = {
  accountId: defineSearchAttributeKey('DocqaAccountId', SearchAttributeType.KEYWORD),
  docSetName: defineSearchAttributeKey('DocqaDocSetName', SearchAttributeType.KEYWORD),
  sourceType: defineSearchAttributeKey('DocqaSourceType', SearchAttributeType.KEYWORD),
} as const;

/** The type names the Temporal CLI takes (`--search-attribute Name=Keyword`). */
const CLI_TYPE_NAMES: Record<string, string> = { [SearchAttributeType.KEYWORD]: 'Keyword' };

/** Attribute name to CLI type name, e.g. `{ DocqaAccountId: 'Keyword' }`. */
export const SEARCH_ATTRIBUTES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(SEARCH_ATTRIBUTE_KEYS).map((key) => [key.name, CLI_TYPE_NAMES[key.type]]),
);

/** docker/temporal/search-attributes.txt: one `Name:Type` a line, read by the shell script and test/infra. */
export function renderSearchAttributesFile(): string {
  const lines = Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => `${name}:${type}`);
  return `# Generated from libs/workflow-contract (npm run contract:generate); do not edit.\n${lines.join('\n')}\n`;
}
