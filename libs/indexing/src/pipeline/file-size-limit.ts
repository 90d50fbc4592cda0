import { SourceError } from '@docqa/sources';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The per-file limit, named by its setting. */
export function fileLimitText(limitBytes: number): string {
  return `the per-file limit of ${mb(limitBytes)} (INDEXING_MAX_FILE_BYTES=${limitBytes})`;
}

/** The reason a file over the per-file limit ends ERROR with: its size and the setting that bounds it. */
export function fileTooLargeReason(limitBytes: number, sizeBytes?: number): string {
  const size = sizeBytes !== undefined ? ` (${mb(sizeBytes)})` : '';
  return `The file${size} is larger than ${fileLimitText(limitBytes)}; it was not indexed`;
}

/** Fails a file the listing says is over the limit, before anything is downloaded. */
export function assertWithinFileLimit(listedBytes: number | null, limitBytes: number): void {
  if (listedBytes !== null && listedBytes > limitBytes)
    throw new SourceError('TOO_LARGE', fileTooLargeReason(limitBytes, listedBytes));
}

/** A download with a connector's TOO_LARGE (the file grew since it was listed) given the same reason. */
export async function withinFileLimit<T>(download: Promise<T>, limitBytes: number): Promise<T> {
  try {
    return await download;
  } catch (err) {
    if (err instanceof SourceError && err.kind === 'TOO_LARGE')
      throw new SourceError('TOO_LARGE', fileTooLargeReason(limitBytes));
    throw err;
  }
}
