import { pptxPages } from './pptx-extractor';
import { xlsxPages } from './xlsx-extractor';

/** The Office readers by file type: what the Office thread runs (office-thread.ts). */
export function officePages(fileType: 'pptx' | 'xlsx', data: Buffer): Promise<string[]> {
  return fileType === 'pptx' ? pptxPages(data) : xlsxPages(data);
}
