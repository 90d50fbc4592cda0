import { Injectable } from '@nestjs/common';
import { DomainError } from '@docqa/common';
import type { SourceType } from '@docqa/db';
import { DownloadedFile, SourceConnector, SourceError, SourceOwner, SourcePage } from '../source.port';
import { UploadFiles } from './upload-files';
import { UPLOAD_SCOPE, uploadFileNameOf, uploadSourceId } from './upload-names';

/**
 * Source type UPLOAD: the files uploaded to a docset (POST /index/upload), read from the account's
 * upload store. Its "credentials" are the owner (account and docset) of the request or run, never
 * fields of a request, so one account cannot reach another's uploads.
 */
@Injectable()
export class UploadConnector implements SourceConnector<SourceOwner> {
  readonly sourceType: SourceType = 'UPLOAD';

  constructor(private readonly uploads: UploadFiles) {}

  parseCredentials(raw: unknown, owner: SourceOwner): SourceOwner {
    if (!owner || !Number.isInteger(owner.accountId) || typeof owner.docSetName !== 'string')
      throw new Error('UploadConnector needs the owner of the request or run');
    if (!isOwnersOrEmpty(raw, owner))
      throw DomainError.validation(
        'credentials',
        'The UPLOAD source takes no credentials: it reads the files uploaded to the docset',
      );
    return { accountId: owner.accountId, docSetName: owner.docSetName };
  }

  scopeOf(): string {
    return UPLOAD_SCOPE;
  }

  check(owner: SourceOwner): Promise<void> {
    return this.uploads.store.check(owner);
  }

  async listPage(owner: SourceOwner, pageToken: string | null, pageSize: number): Promise<SourcePage> {
    const page = await this.uploads.store.list(owner, pageToken, pageSize);
    return {
      objects: page.files.map((f) => ({
        sourceId: uploadSourceId(f.fileName),
        path: f.fileName,
        fileName: f.fileName,
        etag: f.etag,
        sizeBytes: f.sizeBytes,
        lastModified: f.lastModified,
      })),
      nextPageToken: page.nextPageToken,
    };
  }

  async download(owner: SourceOwner, sourceId: string, maxBytes: number): Promise<DownloadedFile> {
    const fileName = uploadFileNameOf(sourceId);
    if (!fileName) throw new SourceError('NOT_FOUND', 'Not an upload source id');
    return this.uploads.store.read(owner, fileName, maxBytes);
  }
}

/**
 * Nothing, `{}`, or what a run stored (the owner it was started for, encrypted on the run): any
 * other field (an `accountId` of another account included) is refused.
 */
function isOwnersOrEmpty(raw: unknown, owner: SourceOwner): boolean {
  if (raw === undefined || raw === null) return true;
  if (typeof raw !== 'object' || Array.isArray(raw)) return false;
  const r = raw as Record<string, unknown>;
  return Object.keys(r).every(
    (k) =>
      (k === 'accountId' && r[k] === owner.accountId) || (k === 'docSetName' && r[k] === owner.docSetName),
  );
}
