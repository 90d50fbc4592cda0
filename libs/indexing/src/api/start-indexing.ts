import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { INDEXABLE_FILE_TYPES, SourceConnectorRegistry, SourceCredentialsCipher } from '@docqa/sources';
import type { RunOptions } from '../persistence/run.store';
import { RunStore } from '../persistence/run.store';
import { CheckSource } from './check-source';
import { IndexAck, IndexCommand, IndexSyncResult, RunOutcome } from './indexing.commands';
import { runCountsOf } from './indexing-status';
import { RunLauncher } from './run-launcher';

/**
 * POST /index: opens a sync run of a docset from its source (credentials encrypted on the run)
 * and starts its workflow; with `async: false`, waits for the run and reports how it ended.
 */
@Injectable()
export class StartIndexing {
  private readonly logger = new Logger('StartIndexing');

  constructor(
    private readonly connectors: SourceConnectorRegistry,
    private readonly cipher: SourceCredentialsCipher,
    private readonly checkSource: CheckSource,
    private readonly launcher: RunLauncher,
    private readonly runs: RunStore,
  ) {}

  async start(accountId: number, cmd: IndexCommand): Promise<IndexAck | IndexSyncResult> {
    const connector = this.connectors.get(cmd.sourceType);
    const credentials = connector.parseCredentials(cmd.credentials, {
      accountId,
      docSetName: cmd.docSetName,
    });
    const fileTypes = cmd.targetIndexTypes?.length
      ? [...new Set(cmd.targetIndexTypes)]
      : [...INDEXABLE_FILE_TYPES];
    if (cmd.sourceType !== 'S3')
      await this.checkSource.assertNotEmptied(accountId, cmd.docSetName, connector, credentials, fileTypes);

    const runId = randomUUID();
    const options: RunOptions = {
      kind: 'sync',
      fileTypes,
      forceReindex: cmd.forceReindex,
      ocr: cmd.ocr ?? true,
      scope: connector.scopeOf(credentials),
    };
    const workflow = await this.launcher.launch(accountId, cmd.docSetName, {
      id: runId,
      sourceType: cmd.sourceType,
      options,
      credentialsEnc: this.cipher.encrypt(credentials, runId),
      accountName: cmd.accountName ?? null,
      summaryModel: cmd.summaryModel ?? null,
    });
    this.logger.log({ accountId, runId, sourceType: cmd.sourceType }, 'indexing run started');
    const ack: IndexAck = { message: 'Indexing job queued', docSetName: cmd.docSetName, jobId: runId };
    if (cmd.async) return ack;

    await workflow.result().catch(() => undefined);
    const run = await this.runs.getRun(runId);
    const status = (run?.status === 'RUNNING' ? 'FAILED' : (run?.status ?? 'FAILED')) as RunOutcome;
    const message =
      status === 'COMPLETED'
        ? 'Indexing finished'
        : status === 'CANCELLED'
          ? 'Indexing was cancelled'
          : 'Indexing failed';
    return {
      ...ack,
      message,
      status,
      counts: runCountsOf(run?.counters ?? {}),
      ...(run?.error ? { error: run.error } : {}),
    };
  }
}
