import type { SourceType } from '@docqa/db';
import type { SourceMetadata } from './incremental-source';

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
   * malformed input, including fields that try to choose an endpoint or host.
   */
  parseCredentials(raw: unknown): C;
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

export type SourceErrorKind = 'ACCESS_DENIED' | 'NOT_FOUND' | 'UNAVAILABLE' | 'TOO_LARGE';

const ERROR_NAMES: Record<SourceErrorKind, string> = {
  ACCESS_DENIED: 'SourceAccessDenied',
  NOT_FOUND: 'SourceNotFound',
  UNAVAILABLE: 'SourceUnavailable',
  TOO_LARGE: 'DocumentTooLarge',
};

/**
 * A source failure with a message safe to show to the caller (no credentials, no raw SDK text).
 * `name` doubles as the Temporal failure type, so retry policies can list the permanent ones.
 */
export class SourceError extends Error {
  constructor(
    readonly kind: SourceErrorKind,
    message: string,
  ) {
    super(message);
    this.name = ERROR_NAMES[kind];
  }

  /** Only an unavailable source (network, 5xx, throttling) is worth retrying. */
  get retryable(): boolean {
    return this.kind === 'UNAVAILABLE';
  }
}

/** Failure types that no retry can fix (Temporal `nonRetryableErrorTypes`). */
export const PERMANENT_SOURCE_ERRORS = ['SourceAccessDenied', 'SourceNotFound', 'DocumentTooLarge'] as const;
