import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DocumentCatalog } from '@docqa/catalog';
import { DomainError, ErrorCode } from '@docqa/common';
import { SourceCredentialsCipher } from '@docqa/sources';
import { DocumentLifecycleStore } from '../persistence/document-lifecycle.store';
import { RunOptions, RunStore } from '../persistence/run.store';
import { IndexAck } from './indexing.commands';
import { RunLauncher } from './run-launcher';

/**
 * POST /index/retry/:documentId: re-indexes one document in ERROR in a new run of its docset, with
 * the credentials (and summary model) of the run that last indexed it.
 */
@Injectable()
export class RetryDocument {
  constructor(
    private readonly documents: DocumentCatalog,
    private readonly lifecycle: DocumentLifecycleStore,
    private readonly runs: RunStore,
    private readonly cipher: SourceCredentialsCipher,
    private readonly launcher: RunLauncher,
  ) {}

  async retry(
    accountId: number,
    documentId: string,
    allowed: (docSetName: string) => boolean,
  ): Promise<IndexAck & { documentId: string }> {
    const doc = await this.documents.findById(accountId, documentId);
    if (!doc || !allowed(doc.docSetName)) throw DomainError.notFound('Document not found');
    if (doc.status !== 'ERROR')
      throw new DomainError(
        ErrorCode.CONFLICT,
        `Only a document in ERROR can be retried; this one is ${doc.status}`,
        { status: doc.status },
      );
    const previous = doc.lastRunId ? await this.runs.getRun(doc.lastRunId) : null;
    const credentials = previous?.credentialsEnc
      ? this.cipher.decrypt(previous.credentialsEnc, previous.id)
      : undefined;
    const runId = randomUUID();
    const options: RunOptions = {
      kind: 'retry',
      fileTypes: [doc.fileType],
      forceReindex: true,
      // a retry reads scans whatever the failed run said: its reason may have been OCR turned off
      ocr: true,
      scope: '',
      documentId,
    };
    await this.launcher.launch(
      accountId,
      doc.docSetName,
      {
        id: runId,
        sourceType: doc.sourceType,
        options,
        credentialsEnc: credentials === undefined ? null : this.cipher.encrypt(credentials, runId),
        accountName: null,
        summaryModel: previous?.summaryModel ?? null,
      },
      async (m) => {
        if (!(await this.lifecycle.resetForRetry(m, accountId, documentId, runId)))
          throw new DomainError(ErrorCode.CONFLICT, 'Only a document in ERROR can be retried');
      },
    );
    return { message: 'Retry queued', docSetName: doc.docSetName, documentId, jobId: runId };
  }
}
