/**
 * SQL condition: the document has an indexed version that search serves. True for every COMPLETE
 * document, and also while a COMPLETE document is re-indexed (PENDING, INDEXING) or after its
 * re-index failed or was cancelled: its previous version keeps answering until a new one is
 * complete or the document is removed. A docset exists exactly when one of its documents is
 * served (spec "Docset existence": it disappears only when its last document is removed). Every
 * query that decides whether a docset exists uses this (all of them are in libs/catalog); `alias` is the documents table's alias.
 */
export function documentServedSql(alias?: string): string {
  return `${alias ? `${alias}.` : ''}served_generation IS NOT NULL`;
}
