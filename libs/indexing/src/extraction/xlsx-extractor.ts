import * as XLSX from '@e965/xlsx';
import { OfficeRejection } from './office-rejection';
import { isOleContainer, readOfficeZip } from './office-package';

/**
 * Most filled cells of one sheet that are indexed (250,000). Written as "Header: value" rows that
 * is 5-10 MB of text, thousands of chunks: minutes of embedding on two cores. A larger sheet is a
 * data export, better queried than read; the workbook ends ERROR with this reason rather than
 * being indexed in part.
 */
export const XLSX_MAX_CELLS_PER_SHEET = 250_000;

const detail = (err: unknown) =>
  String((err as Error)?.message ?? err)
    .replace(/\s+/g, ' ')
    .slice(0, 200);

function readWorkbook(data: Buffer): XLSX.WorkBook {
  try {
    // cellText: each cell's displayed text (number formats and dates applied; a formula's cached value)
    return XLSX.read(data, {
      type: 'buffer',
      dense: true,
      cellText: true,
      cellHTML: false,
      cellFormula: false,
    });
  } catch (err) {
    if (/password|encrypt/i.test(detail(err)))
      throw new OfficeRejection('ENCRYPTED', 'The XLSX file is encrypted (password-protected)');
    throw new OfficeRejection('CORRUPT', `The XLSX file could not be read (${detail(err)})`);
  }
}

/** Filled cells of a sheet (dense mode: rows of cells, holes for empty ones). */
function filledCells(sheet: XLSX.WorkSheet): number {
  const rows = (sheet['!data'] ?? []) as Array<Array<XLSX.CellObject | undefined> | undefined>;
  let n = 0;
  for (const row of rows) if (row) for (const cell of row) if (cell && cell.t !== 'z') n++;
  return n;
}

/**
 * A sheet as text: its name, then one line per row with each value named by its column header
 * (`Region: North | Revenue: 1,234.50`), so any chunk of rows, wherever the chunker cuts, still
 * says what each value is. The header row is the first non-empty row; a blank header cell is named
 * by its column letter. The header row is not written as a line of its own (every row line names
 * its columns, and a line of bare labels reads as a form with its fields left blank) unless the
 * sheet has no other row.
 */
export function sheetText(name: string, sheet: XLSX.WorkSheet): string {
  const rows = XLSX.utils.sheet_to_json<string[]>(sheet, {
    header: 1,
    raw: false,
    blankrows: false,
    defval: '',
  });
  const clean = (v: unknown) =>
    String(v ?? '')
      .replace(/\s+/g, ' ')
      .trim();
  const first = rows.findIndex((r) => r.some((v) => clean(v) !== ''));
  if (first < 0) return ''; // an empty sheet keeps its page number
  const width = rows.reduce((w, r) => Math.max(w, r.length), 0);
  const headers = Array.from(
    { length: width },
    (_, i) => clean(rows[first][i]) || `Column ${XLSX.utils.encode_col(i)}`,
  );
  const lines = [name];
  for (const row of rows.slice(first + 1)) {
    const cells = row.map((v, i) => [headers[i], clean(v)]).filter(([, v]) => v !== '');
    if (cells.length) lines.push(cells.map(([h, v]) => `${h}: ${v}`).join(' | '));
  }
  if (lines.length === 1) lines.push(headers.join(' | '));
  return lines.join('\n');
}

/**
 * Text of an Excel workbook, one page per visible sheet in workbook order (hidden and very hidden
 * sheets are skipped, so page n is the n-th tab a reader sees). Cells are read as displayed.
 */
export async function xlsxPages(data: Buffer): Promise<string[]> {
  // A non-OLE file must be a sound zip first: SheetJS would read plain text as CSV, and reports a
  // damaged zip as "Unsupported ZIP encryption".
  if (!isOleContainer(data)) await readOfficeZip(data, 'XLSX');
  const wb = readWorkbook(data);
  const pages: string[] = [];
  wb.SheetNames.forEach((name, i) => {
    if (wb.Workbook?.Sheets?.[i]?.Hidden) return;
    const sheet = wb.Sheets[name];
    if (!sheet) return;
    const cells = filledCells(sheet);
    if (cells > XLSX_MAX_CELLS_PER_SHEET)
      throw new OfficeRejection(
        'UNSUPPORTED',
        `Sheet "${name}" has ${cells} filled cells, more than the ${XLSX_MAX_CELLS_PER_SHEET} cells per sheet that are indexed`,
      );
    pages.push(sheetText(name, sheet));
  });
  return pages;
}
