import type { SourceOwner } from '../source.port';

export interface StoredUpload {
  fileName: string;
  /** Changes whenever the file is replaced. */
  etag: string;
  sizeBytes: number;
  lastModified: string;
}

export interface StoredUploadPage {
  files: StoredUpload[];
  nextPageToken: string | null;
}

/**
 * Where uploaded files live, per account and docset (the owner is always the authenticated
 * account, never a request field). Failures are SourceErrors (NOT_FOUND, TOO_LARGE, UNAVAILABLE).
 */
export interface UploadStore {
  /** `directory` (DATA_DIR/uploads) or `s3` (UPLOAD_S3_BUCKET). */
  readonly kind: 'directory' | 's3';
  /** Throws SourceError UNAVAILABLE when the store cannot be reached. */
  check(owner: SourceOwner): Promise<void>;
  /** The docset's files in name order, a page at a time. */
  list(owner: SourceOwner, pageToken: string | null, pageSize: number): Promise<StoredUploadPage>;
  read(
    owner: SourceOwner,
    fileName: string,
    maxBytes: number,
  ): Promise<{ data: Buffer; etag: string | null }>;
  /** Stores (or replaces) `fileName` with the staged file at `localPath`, which it may move. */
  put(owner: SourceOwner, fileName: string, localPath: string, sizeBytes: number): Promise<void>;
  /** Removes every file of the docset. */
  deleteDocset(owner: SourceOwner): Promise<void>;
  /** Removes every file of the account. */
  deleteAccount(accountId: number): Promise<void>;
}
