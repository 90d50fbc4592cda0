import type { SourceConnector, SourceObject } from './source.port';

/**
 * Source metadata a connector attaches to each listed file; indexing stores it on the document
 * (documents.source_metadata) so citations and chatbot links point back to the original.
 * `itemId` is the source's own stable id (Graph item id, Drive file id): change feeds report
 * deletions by it, and a rename keeps it while the path-based `sourceId` changes.
 */
export interface SourceMetadata {
  itemId: string;
  webUrl?: string;
  siteId?: string;
  driveId?: string;
  /** Folder path inside the drive ('' for the root), SharePoint only. */
  folderPath?: string;
  mimeType?: string;
  /** Set when the file is a Google Docs/Sheets/Slides file exported to an indexable format. */
  exportedAs?: string;
}

export interface ListedObject extends SourceObject {
  metadata: SourceMetadata;
}

/** One page of a change feed (Graph delta, Drive changes) inside a source scope. */
export interface ChangesPage {
  /** Files added or changed inside the scope (a renamed or moved file appears with its new path). */
  upserted: ListedObject[];
  /** `metadata.itemId`s of files deleted, trashed or moved out of the scope. */
  removedItemIds: string[];
  /** Continuation of this feed; null on the last page. */
  nextPageToken: string | null;
  /** On the last page: the cursor to store for the next run. */
  nextCursor: string | null;
  /**
   * The stored cursor expired (Graph 410 resyncRequired, Drive invalid page token): the caller runs
   * a full listing instead, taking a fresh cursor first.
   */
  resyncRequired: boolean;
}

/**
 * A connector with a change feed, so a re-sync reads only what changed since the last run. The
 * cursor is stored per account, docset, source type and scope (SourceSyncStateRepository).
 */
export interface IncrementalSourceConnector<C = unknown> extends SourceConnector<C> {
  /** A cursor for "now". Take it before a full listing so changes made during it are seen next time. */
  latestCursor(credentials: C): Promise<string>;
  changesPage(credentials: C, cursor: string, pageToken: string | null): Promise<ChangesPage>;
}

export function isIncremental<C>(c: SourceConnector<C>): c is IncrementalSourceConnector<C> {
  return typeof (c as Partial<IncrementalSourceConnector<C>>).changesPage === 'function';
}
