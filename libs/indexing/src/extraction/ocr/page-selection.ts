/**
 * Which pages of a PDF are read by OCR: those whose text layer holds no letter or digit (a
 * scanned page is an image; its text layer is empty, or whitespace and stray punctuation). A page
 * with any word of text keeps its text layer, so a born-digital PDF is never OCR'd, and a PDF
 * that mixes typed and scanned pages has only its scanned pages read.
 */
export function pagesWithoutText(pages: readonly string[]): number[] {
  const numbers: number[] = [];
  pages.forEach((text, i) => {
    if (!/[\p{L}\p{N}]/u.test(text)) numbers.push(i + 1);
  });
  return numbers;
}

/** What the OCR step is doing, for the activity's heartbeat (1-based physical page numbers). */
export interface OcrProgress {
  /** The page being read. */
  pageNumber: number;
  /** Its rank among the pages read by OCR (1-based) and how many there are. */
  index: number;
  total: number;
}

/** One line for operators: "OCR: reading page 7 (2 of 5 pages without text)". */
export function describeOcrProgress(p: OcrProgress): string {
  return `OCR: reading page ${p.pageNumber} (${p.index} of ${p.total} pages without text)`;
}
