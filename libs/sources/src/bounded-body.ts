import { SourceError } from './source.port';

/** The TOO_LARGE error of a file over a download's byte limit. */
export function tooLarge(maxBytes: number): SourceError {
  return new SourceError('TOO_LARGE', `The file is larger than the ${maxBytes}-byte limit`);
}

/**
 * A download's body read into memory, stopping with TOO_LARGE as soon as it passes `maxBytes` (a
 * size the source reported may be wrong). A stream that breaks off is UNAVAILABLE with
 * `interrupted` as its message (retryable; it names no address or credential).
 */
export async function readWithinLimit(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
  interrupted: string,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge(maxBytes);
      chunks.push(Buffer.from(chunk));
    }
  } catch (err) {
    if (err instanceof SourceError) throw err;
    throw new SourceError('UNAVAILABLE', interrupted);
  }
  return Buffer.concat(chunks, size);
}
