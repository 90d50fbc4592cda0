import type { EmbeddingSpace } from '@docqa/common';
import type { ChunkRecord } from './search.port';
import type { ChunkFailure } from './search.errors';

/**
 * Version of the Elasticsearch chunk index layout (mapping, analysers). Bump it when the layout
 * changes: the adapter then builds a new index and moves the data (new index + alias swap).
 * 2: document context fields (documentTitle, documentTerms, section), searched and boosted.
 */
export const INDEX_LAYOUT_VERSION = 2;

/**
 * Version of the embedded engine's table layout (columns, full-text analysis); a new version is a
 * new table, into which the older tables' rows are copied on first use (EmbeddedSearchIndex).
 * 2: document context columns. 3: `text_plain`, the text without stemming (Elasticsearch's
 * `text.plain`). Its own number, so an embedded-only change never re-indexes Elasticsearch.
 */
export const EMBEDDED_LAYOUT_VERSION = 3;

/** `embed-english-v3.0` -> `embed-english-v3-0`: safe in ES index names and table names. */
export function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'model'
  );
}

/** Physical index name: layout version + embedding space, so two embedders never share an index. */
export function versionedIndexName(
  prefix: string,
  space: EmbeddingSpace,
  version = INDEX_LAYOUT_VERSION,
): string {
  return `${prefix}-v${version}-${slug(space.modelName)}-${space.dimensions}`;
}

/** The embedded engine's table of a layout version and embedding space (no dots in table names). */
export function embeddedTableName(space: EmbeddingSpace, version = EMBEDDED_LAYOUT_VERSION): string {
  return versionedIndexName('chunks', space, version).replace(/\./g, '-');
}

const MAX_TEXT_CHARS = 1_000_000;
const MAX_CONTEXT_CHARS = 10_000;

/** Checks one chunk before it is sent to an engine; returns the reason it is refused, if any. */
export function chunkProblem(c: ChunkRecord, dimensions: number): string | undefined {
  if (!Number.isSafeInteger(c.accountId) || c.accountId < 1) return 'accountId must be a positive integer';
  for (const f of ['docSetName', 'documentId', 'fileName', 'pageNumber', 'sourceType'] as const) {
    if (typeof c[f] !== 'string' || c[f] === '') return `${f} is required`;
  }
  if (typeof c.sourceId !== 'string') return 'sourceId must be a string';
  if (!Number.isInteger(c.chunkIndex) || c.chunkIndex < 0 || c.chunkIndex > 2 ** 31 - 1) {
    return 'chunkIndex must be an integer 0-2147483647';
  }
  if (typeof c.text !== 'string') return 'text must be a string';
  for (const f of ['documentTitle', 'documentTerms', 'section'] as const) {
    if (c[f] !== undefined && typeof c[f] !== 'string') return `${f} must be a string`;
    if ((c[f]?.length ?? 0) > MAX_CONTEXT_CHARS) return `${f} is longer than ${MAX_CONTEXT_CHARS} characters`;
  }
  if (c.text.length > MAX_TEXT_CHARS) return `text is longer than ${MAX_TEXT_CHARS} characters`;
  if (!Array.isArray(c.embedding) || c.embedding.length !== dimensions) {
    return `embedding must have ${dimensions} dimensions`;
  }
  if (!c.embedding.every((x) => Number.isFinite(x))) return 'embedding has a non-finite value';
  if (c.embedding.every((x) => x === 0)) return 'embedding is all zeros (cosine is undefined)';
  return undefined;
}

/** Splits a batch into valid chunks (last write wins per id) and refused ones. */
export function partitionChunks(
  chunks: ChunkRecord[],
  dimensions: number,
  id: (c: ChunkRecord) => string,
): { valid: ChunkRecord[]; failures: ChunkFailure[] } {
  const byId = new Map<string, ChunkRecord>();
  const failures: ChunkFailure[] = [];
  for (const c of chunks) {
    const problem = chunkProblem(c, dimensions);
    const cid = typeof c.documentId === 'string' ? id(c) : '(no documentId)';
    if (problem) failures.push({ id: cid, reason: problem });
    else {
      byId.delete(cid);
      byId.set(cid, c);
    }
  }
  return { valid: [...byId.values()], failures };
}
