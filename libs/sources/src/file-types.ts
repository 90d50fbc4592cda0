/**
 * File types the indexer extracts, by file-name extension. `targetIndexTypes` in an index request
 * names these values; anything else in a source is not a "supported file" and is never listed.
 */
export const INDEXABLE_FILE_TYPES = ['pdf', 'docx', 'pptx', 'xlsx', 'txt', 'md', 'csv', 'html'] as const;
export type IndexableFileType = (typeof INDEXABLE_FILE_TYPES)[number];

const BY_EXTENSION: Readonly<Record<string, IndexableFileType>> = {
  pdf: 'pdf',
  docx: 'docx',
  pptx: 'pptx',
  xlsx: 'xlsx',
  txt: 'txt',
  text: 'txt',
  md: 'md',
  markdown: 'md',
  csv: 'csv',
  html: 'html',
  htm: 'html',
};

/** The indexable type of a file name (case-insensitive extension), or null when unsupported. */
export function fileTypeOf(fileName: string): IndexableFileType | null {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || dot === base.length - 1) return null;
  return BY_EXTENSION[base.slice(dot + 1).toLowerCase()] ?? null;
}
