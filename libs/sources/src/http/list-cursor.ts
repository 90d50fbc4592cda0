import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { SourceError } from '../source.port';

/**
 * Page tokens of the folder-walking listings (SharePoint, Google Drive) carry the folders still to
 * list. They travel in activity inputs and results, so they are deflated (folder paths share long
 * prefixes) and base64url-encoded: a scope with thousands of folders stays well inside Temporal's
 * payload limits.
 */
export function encodeListCursor(cursor: unknown): string {
  return deflateRawSync(Buffer.from(JSON.stringify(cursor), 'utf8')).toString('base64url');
}

export function decodeListCursor<T>(token: string): T {
  try {
    return JSON.parse(inflateRawSync(Buffer.from(token, 'base64url')).toString('utf8')) as T;
  } catch {
    throw new SourceError('NOT_FOUND', 'The listing page token is not valid');
  }
}
