import { Inject, Injectable, Logger } from '@nestjs/common';
import { DocsetCatalog } from '@docqa/catalog';
import { DomainError } from '@docqa/common';
import { SEARCH_INDEX, SearchIndex } from '@docqa/search';
import { UploadFiles } from '@docqa/sources';
import { DocumentLifecycleStore } from '../persistence/document-lifecycle.store';
import { RunRow, RunStore } from '../persistence/run.store';
import { IndexingWorkflowClient } from './indexing-workflow.client';

/**
 * DELETE /index/docsets, and the same clean-up for a whole account before it is deleted: stop the
 * open runs (waiting for them), then remove chunks from the search index, then documents, pages
 * and runs, then the files uploaded to those docsets (the upload store).
 */
@Injectable()
export class DeleteDocsets {
  private readonly logger = new Logger('DeleteDocsets');

  constructor(
    private readonly docsets: DocsetCatalog,
    private readonly runs: RunStore,
    private readonly lifecycle: DocumentLifecycleStore,
    private readonly workflows: IndexingWorkflowClient,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    private readonly uploads: UploadFiles,
  ) {}

  /** Cancels open runs, then deletes the docsets' chunks, documents, pages and runs. */
  async deleteDocsets(
    accountId: number,
    names: string[],
  ): Promise<{ message: string; docSetNames: string[]; deletedDocumentCount: number }> {
    const unique = [...new Set(names)];
    const owned = new Set(await this.docsets.knownDocsetNames(accountId, unique));
    const foreign = unique.filter((n) => !owned.has(n));
    if (foreign.length) throw DomainError.forbidden('Every docset to delete must belong to your account');
    await this.stopRuns(await this.runs.openRunsOfAccount(accountId, unique));
    for (const name of unique) await this.search.deleteByDocSet(accountId, name);
    const deletedDocumentCount = await this.lifecycle.deleteDocsets(accountId, unique);
    for (const docSetName of unique) await this.uploads.store.deleteDocset({ accountId, docSetName });
    this.logger.log({ accountId, docSets: unique.length, deletedDocumentCount }, 'docsets deleted');
    return { message: 'Docsets deleted', docSetNames: unique, deletedDocumentCount };
  }

  /** Account deletion: stop every run, then remove the account's chunks, documents and runs. */
  async deleteAccountData(accountId: number): Promise<void> {
    await this.stopRuns(await this.runs.openRunsOfAccount(accountId));
    await this.search.deleteByAccount(accountId);
    const names = await this.docsets.knownDocsetNames(accountId, null);
    if (names.length) await this.lifecycle.deleteDocsets(accountId, names);
    await this.uploads.store.deleteAccount(accountId);
  }

  private async stopRuns(runs: RunRow[]): Promise<void> {
    await Promise.all(
      runs.map(async (run) => {
        await this.workflows.stop(run.workflowId, 'docset or account deleted');
        await this.runs.finishRun(run.id, 'CANCELLED', null, {});
      }),
    );
  }
}
