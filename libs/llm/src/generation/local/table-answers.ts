import { quoteRow, tableHeader, tableRow } from '@docqa/text';

/** A line this short inside a table is a sub-heading or a wrapped label, not prose ending the table. */
const SUBHEADING_CHARS = 90;

/**
 * The table rows of a passage's text, each quoted with the periods of the header it stands under
 * (`Purchases of PP&E: 2018 (1,577), 2017 (1,373)`), by the row's line as `segmentText` gives it.
 * A row under no header (or whose figures do not match its header's periods) is quoted as its
 * label and figures.
 */
export function rowQuotes(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let periods: string[] | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+/g, ' ').trim();
    if (!line) continue;
    const header = tableHeader(line);
    if (header) {
      periods = header;
      continue;
    }
    const row = tableRow(line);
    if (row) out.set(line, quoteRow(row, periods));
    else if (line.length > SUBHEADING_CHARS) periods = undefined;
  }
  return out;
}
