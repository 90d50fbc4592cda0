import * as lancedb from '@lancedb/lancedb';
import { contextQueryText, DEFAULT_FIELD_BOOSTS, LegHit, LegQuery, storedAccountId } from './retrieval-legs';
import { FTS_COLUMNS, type FtsColumn, PLAIN_TEXT_BOOST, Row, sqlString, toChunk } from './embedded-layout';
import { chunkId, ChunksByIdQuery } from './search.port';

/**
 * Query translation of the embedded engine: pure functions from the port's and the legs' queries
 * to the engine's predicates (SQL filters) and full-text queries. No engine call happens here.
 */

/** The filter every query carries: the account and its requested docsets (and routed documents). */
export function scopePredicate(q: Pick<LegQuery, 'storedAccountId' | 'docSetNames' | 'documentIds'>): string {
  return (
    `account_id = ${sqlString(q.storedAccountId)} AND ` +
    `doc_set_name IN (${q.docSetNames.map(sqlString).join(', ')})` +
    (q.documentIds ? ` AND document_id IN (${q.documentIds.map(sqlString).join(', ')})` : '')
  );
}

/** BM25 over the text and the document context fields, with their boosts (as Elasticsearch's). */
export function bm25Query(q: LegQuery): lancedb.BooleanQuery {
  const b = { ...DEFAULT_FIELD_BOOSTS, ...(q.fieldBoosts ?? {}) };
  const text = contextQueryText(q.text);
  const boosts: Record<FtsColumn, number> = {
    text: 1,
    text_plain: PLAIN_TEXT_BOOST,
    section: b.section,
    doc_title: b.documentTitle,
    doc_terms: b.documentTerms,
  };
  // A boolean of per-column matches sums the columns' scores (as Elasticsearch's most_fields);
  // the engine's multi-match keeps only the best column's.
  return new lancedb.BooleanQuery(
    FTS_COLUMNS.filter((c) => boosts[c] > 0).map((c) => [
      lancedb.Occur.Should,
      new lancedb.MatchQuery(text, c, { boost: boosts[c] }),
    ]),
  );
}

/** The document routing leg: the query against the context fields (title, identifying terms). */
export function documentsQuery(q: LegQuery): lancedb.BooleanQuery {
  return new lancedb.BooleanQuery(
    (['doc_title', 'doc_terms'] as const).map((c) => [
      lancedb.Occur.Should,
      new lancedb.MatchQuery(contextQueryText(q.text), c),
    ]),
  );
}

/** ... over chunk 0 only, which stands for its document (one row each). */
export function documentsPredicate(q: LegQuery): string {
  return `${scopePredicate(q)} AND chunk_index = 0`;
}

/** The kNN leg's rows as hits: cosine similarity (1 - distance), those below the cut-off dropped. */
export function similarHits(
  rows: Array<Row & { _distance: number }>,
  minimumSimilarityScore: number,
): LegHit[] {
  const out: LegHit[] = [];
  for (const r of rows) {
    const similarity = 1 - r._distance;
    if (similarity >= minimumSimilarityScore) out.push({ chunk: toChunk(r), score: similarity });
  }
  return out;
}

/** The chunks by id of chunksAndTerms: the ids, within the account's named docsets. */
export function chunksByIdPredicate(q: ChunksByIdQuery): string {
  const scope = scopePredicate({ storedAccountId: storedAccountId(q.accountId), docSetNames: q.docSetNames });
  return `${scope} AND id IN (${q.ids.map(sqlString).join(', ')})`;
}

/** The rows a delete removes: the account's, narrowed by `extra` when given. */
export function deletePredicate(accountId: number, extra?: string): string {
  return `account_id = ${sqlString(storedAccountId(accountId))}` + (extra ? ` AND ${extra}` : '');
}

export const documentPredicate = (documentId: string) => `document_id = ${sqlString(documentId)}`;

export const docSetPredicate = (docSetName: string) => `doc_set_name = ${sqlString(docSetName)}`;

/** Some chunks of one document (deleteChunks). */
export function documentChunksPredicate(documentId: string, ids: string[]): string {
  return `${documentPredicate(documentId)} AND id IN (${ids.map(sqlString).join(', ')})`;
}

/** The row count of stats: the account's rows, or every row. */
export function statsPredicate(accountId: number | undefined): string | undefined {
  return accountId === undefined ? undefined : `account_id = ${sqlString(storedAccountId(accountId))}`;
}

/**
 * One row the read probe of `health` searches for, so the probe runs the real search path (the
 * full-text and vector legs decode rows on the engine's compute pool, the part that wedged in
 * issue #13). Its account id is not a real one, and every search and delete is account-scoped.
 */
export const PROBE = {
  accountId: '__health_probe__',
  docSetName: '__health_probe__',
  text: 'docqa health probe',
};

export const probeRowPredicate = `account_id = ${sqlString(PROBE.accountId)}`;

/** The probe row, as stored (its account is no account id, so it is written as a row). */
export function probeRecord(dimensions: number): Row {
  const vector = new Array<number>(dimensions).fill(0);
  vector[0] = 1;
  return {
    id: chunkId(PROBE.accountId, 0),
    account_id: PROBE.accountId,
    doc_set_name: PROBE.docSetName,
    document_id: PROBE.accountId,
    file_name: PROBE.accountId,
    page_number: '1',
    source_type: 'S3',
    source_id: PROBE.accountId,
    chunk_index: 0,
    text: PROBE.text,
    text_plain: PROBE.text,
    doc_title: '',
    doc_terms: '',
    section: '',
    vector,
  };
}

/** The health probe's search: the probe row's account and docset, both legs, one hit. */
export function probeQuery(dimensions: number): LegQuery & { vector: number[] } {
  return {
    storedAccountId: PROBE.accountId,
    docSetNames: [PROBE.docSetName],
    text: PROBE.text,
    vector: probeRecord(dimensions).vector,
    limit: 1,
    minimumSimilarityScore: -1,
  };
}
