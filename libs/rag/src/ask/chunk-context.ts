import type { StoredChunk } from '@docqa/search';

/**
 * A chunk's document context as one line: title, section, identifying terms. A page of a report
 * rarely says which report it is from, so rerankers and answerers get this along with the text
 * (citations still point at the chunk's own file and page).
 */
export function chunkContext(c: StoredChunk): string {
  return [c.documentTitle, c.section, c.documentTerms].filter((s) => s && s.trim()).join(' | ');
}

/** What a reranker scores: the context line, then the chunk text. */
export function rerankDocument(c: StoredChunk): string {
  const context = chunkContext(c);
  return context ? `${context}\n${c.text}` : c.text;
}
