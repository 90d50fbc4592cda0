import { Field, FixedSizeList, Float32, Int32, Schema, Utf8 } from 'apache-arrow';
import { createHash } from 'node:crypto';
import { storedAccountId } from './retrieval-legs';
import { chunkId, ChunkRecord, StoredChunk } from './search.port';

// The embedded engine's table layout (EMBEDDED_LAYOUT_VERSION): its columns, their full-text
// analysis, and the mapping between chunks and rows. A change here is a new layout version.

/** Row layout of the table (snake_case: the engine's SQL filters are case-insensitive). */
export interface Row extends Record<string, unknown> {
  id: string;
  account_id: string;
  doc_set_name: string;
  document_id: string;
  file_name: string;
  page_number: string;
  source_type: string;
  source_id: string;
  chunk_index: number;
  text: string;
  /** The chunk text again, indexed without stemming (as Elasticsearch's `text.plain`). */
  text_plain: string;
  doc_title: string;
  doc_terms: string;
  section: string;
  vector: number[];
}

export const COLUMNS = [
  'id',
  'account_id',
  'doc_set_name',
  'document_id',
  'file_name',
  'page_number',
  'source_type',
  'source_id',
  'chunk_index',
  'text',
  'doc_title',
  'doc_terms',
  'section',
];

export function schema(dimensions: number): Schema {
  const s = (name: string) => new Field(name, new Utf8(), false);
  return new Schema([
    s('id'),
    s('account_id'),
    s('doc_set_name'),
    s('document_id'),
    s('file_name'),
    s('page_number'),
    s('source_type'),
    s('source_id'),
    new Field('chunk_index', new Int32(), false),
    s('text'),
    s('text_plain'),
    s('doc_title'),
    s('doc_terms'),
    s('section'),
    new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
  ]);
}

/** A chunk id as 48 bits of its SHA-1: the stored-id set holds numbers, not strings (1M ids ~ 30 MB). */
export function idHash(id: string): number {
  return createHash('sha1').update(id).digest().readUIntBE(0, 6);
}

/** SQL string literal for the engine's filter language. */
export function sqlString(v: string): string {
  return `'${v.replace(/'/g, "''")}'`;
}

/** English analysis comparable to Elasticsearch's `english` analyser. */
const FTS_OPTIONS = {
  withPosition: false,
  baseTokenizer: 'simple' as const,
  language: 'English',
  stem: true,
  removeStopWords: true,
  lowercase: true,
  asciiFolding: true,
  maxTokenLength: 64,
};

/**
 * Columns with a full-text index and their analysis: the chunk text, stemmed and plain, and the
 * document context fields. The plain column is like Elasticsearch's `standard` analyser of
 * `text.plain` (exact word forms) except that stop words are dropped: keeping them gave the same
 * hybrid quality on SciFact and dev and slower hybrid searches (docs/benchmarks/search.md, "The
 * plain text column").
 */
export const FTS_COLUMN_OPTIONS = {
  text: FTS_OPTIONS,
  text_plain: { ...FTS_OPTIONS, stem: false },
  section: FTS_OPTIONS,
  doc_title: FTS_OPTIONS,
  doc_terms: FTS_OPTIONS,
};
export type FtsColumn = keyof typeof FTS_COLUMN_OPTIONS;
export const FTS_COLUMNS = Object.keys(FTS_COLUMN_OPTIONS) as FtsColumn[];

/** The plain column's weight beside the stemmed text (Elasticsearch's `text.plain^0.5`). */
export const PLAIN_TEXT_BOOST = 0.5;

export function toRow(c: ChunkRecord): Row {
  return {
    id: chunkId(c.documentId, c.chunkIndex, c.generation),
    account_id: storedAccountId(c.accountId),
    doc_set_name: c.docSetName,
    document_id: c.documentId,
    file_name: c.fileName,
    page_number: c.pageNumber,
    source_type: c.sourceType,
    source_id: c.sourceId,
    chunk_index: c.chunkIndex,
    text: c.text,
    text_plain: c.text,
    doc_title: c.documentTitle ?? '',
    doc_terms: c.documentTerms ?? '',
    section: c.section ?? '',
    vector: c.embedding,
  };
}

/** A row of an older layout as a row of this one (missing text columns empty). */
export function upgradeRow(r: Record<string, unknown>): Row {
  const text = (k: string) => (typeof r[k] === 'string' ? (r[k] as string) : '');
  return {
    id: text('id'),
    account_id: text('account_id'),
    doc_set_name: text('doc_set_name'),
    document_id: text('document_id'),
    file_name: text('file_name'),
    page_number: text('page_number'),
    source_type: text('source_type'),
    source_id: text('source_id'),
    chunk_index: Number(r.chunk_index),
    text: text('text'),
    text_plain: text('text'),
    doc_title: text('doc_title'),
    doc_terms: text('doc_terms'),
    section: text('section'),
    vector: Array.from(r.vector as ArrayLike<number>),
  };
}

export function toChunk(r: Row): StoredChunk {
  return {
    id: r.id,
    accountId: Number(r.account_id),
    docSetName: r.doc_set_name,
    documentId: r.document_id,
    fileName: r.file_name,
    pageNumber: r.page_number,
    sourceType: r.source_type,
    sourceId: r.source_id,
    chunkIndex: Number(r.chunk_index),
    text: r.text,
    documentTitle: r.doc_title,
    documentTerms: r.doc_terms,
    section: r.section,
  };
}

/** What plainRows reads of an engine result (an apache-arrow Table). */
export interface ColumnarResult {
  numRows: number;
  schema: { fields: ReadonlyArray<{ name: string }> };
  getChild(name: string): Iterable<unknown> | null;
}

/**
 * An engine result's rows as plain objects, read column by column: the values the engine's
 * `toArray()` gives (apache-arrow's row proxies, which look each field up by name and type on
 * every read), about four times cheaper to read: 2-3 ms of CPU per ask at 8 concurrent asks.
 */
export async function plainRows<T>(query: { toArrow(): Promise<ColumnarResult> }): Promise<T[]> {
  const table = await query.toArrow();
  const rows = Array.from({ length: table.numRows }, () => ({}) as Record<string, unknown>);
  for (const { name } of table.schema.fields) {
    let i = 0;
    for (const value of table.getChild(name) ?? []) rows[i++][name] = value;
  }
  return rows as T[];
}
