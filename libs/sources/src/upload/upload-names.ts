import { createHash } from 'node:crypto';
import { DomainError } from '@docqa/common';

/**
 * Longest stored file name in UTF-8 bytes: common file systems allow 255 per name, and S3 keys
 * carry the account id and docset key before it.
 */
export const UPLOAD_FILE_NAME_MAX_BYTES = 240;

/** Scope of every upload source id: a docset's upload store holds one flat folder of files. */
export const UPLOAD_SCOPE = 'upload://';

// C0/C1 controls, and bidirectional overrides that make a name read differently than it sorts.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The stored name of an uploaded file: the last path segment of what the client sent (browsers
 * and curl send a bare name; anything before a `/` or `\` is dropped, so `../../x.pdf` is
 * `x.pdf`), NFC, without control or bidi-override characters, leading dots and surrounding
 * spaces. A 400 when nothing is left or it is too long.
 */
export function uploadFileName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  const name = base.normalize('NFC').replace(UNSAFE, '').trim().replace(/^\.+/, '').trim();
  if (!name)
    throw DomainError.validation(
      'files',
      'Every file needs a file name (filename in its Content-Disposition)',
    );
  if (Buffer.byteLength(name, 'utf8') > UPLOAD_FILE_NAME_MAX_BYTES)
    throw DomainError.validation(
      'files',
      `File names may be at most ${UPLOAD_FILE_NAME_MAX_BYTES} bytes long (UTF-8)`,
    );
  return name;
}

/** True when `name` is exactly what uploadFileName keeps (a stored name, safe as a path segment). */
export function isStoredUploadName(name: string): boolean {
  try {
    return uploadFileName(name) === name;
  } catch {
    return false;
  }
}

export function uploadSourceId(fileName: string): string {
  return `${UPLOAD_SCOPE}${fileName}`;
}

/** The stored file name of an upload source id, or null when it is not one. */
export function uploadFileNameOf(sourceId: string): string | null {
  if (!sourceId.startsWith(UPLOAD_SCOPE)) return null;
  const name = sourceId.slice(UPLOAD_SCOPE.length);
  return isStoredUploadName(name) ? name : null;
}

/**
 * Folder (or key segment) of a docset in the store: the SHA-256 of its name, so any valid docset
 * name (200 code points of any script) fits a path segment without escaping.
 */
export function docsetStoreKey(docSetName: string): string {
  return createHash('sha256').update(docSetName, 'utf8').digest('hex');
}
