import { KindError } from '@docqa/common';
import { SOURCE_FAILURE, type SourceErrorKind } from '@docqa/workflow-contract';
import type { SourceType } from '@docqa/db';
import type { SourceMetadata } from './incremental-source';

/** Whose files a source serves: the authenticated account and the docset of the request or run. */
export interface SourceOwner {
  accountId: number;
  docSetName: string;
}

/** One file in a source listing. */
export interface SourceObject {
  /** Stable id across runs, unique within the source type: `s3://bucket/key`, a Graph item id, ... */
  sourceId: string;
  /** Path of the file inside the source (S3 key, folder path + name). */
  path: string;
  fileName: string;
  /** Change token (S3 ETag, Graph cTag, Drive md5Checksum); null when the source has none. */
  etag: string | null;
  sizeBytes: number;
  lastModified: string | null;
  /** Stored on the document (site/drive/item ids, web URL) for citations and links back. */
  metadata?: SourceMetadata;
}

export interface SourcePage {
  objects: SourceObject[];
  /** Opaque continuation token for the next page; null on the last page. */
  nextPageToken: string | null;
}

export interface DownloadedFile {
  data: Buffer;
  etag: string | null;
}

/**
 * Port of a document source (S3 now; SharePoint and Google Drive later). `C` is the validated
 * credentials object of that source type. Endpoints come from server configuration only.
 */
export interface SourceConnector<C = unknown> {
  readonly sourceType: SourceType;
  /**
   * Validates the request's `credentials` (undefined when omitted). Throws DomainError 400 for
   * malformed input, including fields that try to choose an endpoint or host. `owner` is the
   * account and docset of the request or run, never taken from `raw` (the upload store is scoped
   * by it; the other sources ignore it).
   */
  parseCredentials(raw: unknown, owner: SourceOwner): C;
  /**
   * Prefix of the `sourceId`s this listing covers (for S3 `s3://bucket/prefix`). A run removes
   * only documents inside its scope that the listing no longer returns.
   */
  scopeOf(credentials: C): string;
  /** Cheap connectivity and permission check. Throws SourceError. */
  check(credentials: C): Promise<void>;
  /** One page of the listing (every object; the caller filters file types). Throws SourceError. */
  listPage(credentials: C, pageToken: string | null, pageSize: number): Promise<SourcePage>;
  /** The file's bytes; SourceError TOO_LARGE past `maxBytes`. */
  download(credentials: C, sourceId: string, maxBytes: number): Promise<DownloadedFile>;
}

export type { SourceErrorKind };

/**
 * A source failure with a message safe to show to the caller (no credentials, no raw SDK text).
 * `name` doubles as the Temporal failure type (SOURCE_FAILURE in the workflow contract).
 */
export class SourceError extends KindError<SourceErrorKind> {
  constructor(kind: SourceErrorKind, message: string) {
    super(kind, message, SOURCE_FAILURE);
  }

  /** Only an unavailable source (network, 5xx, throttling) is worth retrying. */
  get retryable(): boolean {
    return this.kind === 'UNAVAILABLE';
  }
}
