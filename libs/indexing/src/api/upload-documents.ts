import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { assertDocsetName } from '@docqa/catalog';
import { DomainError, ErrorCode } from '@docqa/common';
import {
  fileTypeOf,
  INDEXABLE_FILE_TYPES,
  SourceOwner,
  StagedFile,
  UPLOAD_SCOPE,
  uploadFileName,
  UploadFiles,
  UploadStaging,
  UploadTooLargeError,
} from '@docqa/sources';
import { RunStore } from '../persistence/run.store';
import { IndexAck } from './indexing.commands';
import { indexingInProgress, RunLauncher } from './run-launcher';

/** One part of a multipart upload request, in the order the client sent them. */
export type UploadPart =
  | { kind: 'field'; name: string; value: string; truncated: boolean }
  | { kind: 'file'; field: string; fileName: string; stream: Readable };

interface ReceivedUpload {
  docSetName: string;
  files: Array<StagedFile & { fileName: string }>;
}

/**
 * POST /index/upload: stages the request's files (streamed to temporary files with the limits of
 * UploadFiles), and only when the whole request is valid opens a sync run of the docset from its
 * upload store (source type UPLOAD), moves the files into the store while the run holds the
 * docset, and starts the run. Any 4xx leaves nothing stored and no run; a 409 while a run is open.
 * Files uploaded earlier to the docset stay: the store is the docset's source.
 */
@Injectable()
export class UploadDocuments {
  private readonly logger = new Logger('UploadDocuments');

  constructor(
    private readonly uploads: UploadFiles,
    private readonly launcher: RunLauncher,
    private readonly runs: RunStore,
  ) {}

  get limits(): { maxFiles: number; maxFileBytes: number } {
    return this.uploads.limits;
  }

  async upload(
    accountId: number,
    parts: AsyncIterable<UploadPart>,
    allowed: (docSetName: string) => boolean,
  ): Promise<IndexAck> {
    if (!this.uploads.enabled)
      throw new DomainError(
        ErrorCode.CAPABILITY_DISABLED,
        'Uploads are not available: the operator has not configured an upload bucket (UPLOAD_S3_BUCKET)',
      );
    const staging = await this.uploads.openStaging();
    try {
      const { docSetName, files } = await this.receive(accountId, parts, staging, allowed);
      const owner: SourceOwner = { accountId, docSetName };
      const runId = randomUUID();
      await this.launcher.launch(
        accountId,
        docSetName,
        {
          id: runId,
          sourceType: 'UPLOAD',
          options: {
            kind: 'sync',
            fileTypes: [...INDEXABLE_FILE_TYPES],
            forceReindex: false,
            scope: UPLOAD_SCOPE,
          },
          credentialsEnc: null,
          accountName: null,
          summaryModel: null,
        },
        undefined,
        () => this.store(owner, files),
      );
      this.logger.log({ accountId, runId, files: files.length }, 'upload stored, indexing run started');
      return { message: 'Indexing job queued', docSetName, jobId: runId };
    } finally {
      await staging.discard();
    }
  }

  private async store(owner: SourceOwner, files: ReceivedUpload['files']): Promise<void> {
    try {
      for (const f of files) await this.uploads.store.put(owner, f.fileName, f.path, f.sizeBytes);
    } catch (err) {
      this.logger.error(
        { accountId: owner.accountId, errName: (err as Error)?.name },
        'could not store uploaded files',
      );
      throw new DomainError(
        ErrorCode.DEPENDENCY_UNAVAILABLE,
        'The upload store is unavailable; try again later',
      );
    }
  }

  /** Reads every part: the docset name (checked as soon as it arrives) and the staged files. */
  private async receive(
    accountId: number,
    parts: AsyncIterable<UploadPart>,
    staging: UploadStaging,
    allowed: (docSetName: string) => boolean,
  ): Promise<ReceivedUpload> {
    const { maxFiles, maxFileBytes } = this.uploads.limits;
    let docSetName: string | undefined;
    const files: ReceivedUpload['files'] = [];
    const names = new Set<string>();
    for await (const part of parts) {
      if (part.kind === 'field') {
        if (part.name !== 'docSetName')
          throw DomainError.validation('body', 'Only the fields docSetName and files are accepted');
        if (docSetName !== undefined)
          throw DomainError.validation('docSetName', 'docSetName must be sent once');
        if (part.truncated) throw DomainError.validation('docSetName', 'docSetName is too long');
        docSetName = await this.checkDocset(accountId, part.value, allowed);
        continue;
      }
      if (part.field !== 'files')
        throw DomainError.validation('files', 'Files must be sent in the field "files"');
      if (files.length >= maxFiles)
        throw new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, `At most ${maxFiles} files per request`, {
          field: 'files',
          limit: maxFiles,
        });
      const fileName = uploadFileName(part.fileName);
      if (!fileTypeOf(fileName))
        throw new DomainError(
          ErrorCode.UNSUPPORTED_MEDIA_TYPE,
          `"${fileName}" is not a supported file type; supported: ${INDEXABLE_FILE_TYPES.join(', ')}`,
          { field: 'files', fileName },
        );
      if (names.has(fileName)) throw DomainError.validation('files', `Two files are named "${fileName}"`);
      names.add(fileName);
      const staged = await staging.write(part.stream, maxFileBytes).catch((err: unknown) => {
        if (err instanceof UploadTooLargeError)
          throw new DomainError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            `"${fileName}" is larger than the ${maxFileBytes}-byte limit`,
            { field: 'files', fileName, limit: maxFileBytes },
          );
        throw err;
      });
      if (staged.sizeBytes === 0) throw DomainError.validation('files', `"${fileName}" is empty`);
      files.push({ ...staged, fileName });
    }
    if (docSetName === undefined) throw DomainError.validation('docSetName', 'docSetName is required');
    if (!files.length) throw DomainError.validation('files', 'files is required: send at least one file');
    return { docSetName, files };
  }

  /** The docset name's rules, the token's docsets, and no open run (nothing is staged for a 409). */
  private async checkDocset(
    accountId: number,
    value: string,
    allowed: (docSetName: string) => boolean,
  ): Promise<string> {
    const docSetName = assertDocsetName(value);
    if (!allowed(docSetName))
      throw DomainError.forbidden('This API token is not allowed to use the requested docsets');
    if (await this.runs.openRun(accountId, docSetName)) throw indexingInProgress(docSetName);
    return docSetName;
  }
}
