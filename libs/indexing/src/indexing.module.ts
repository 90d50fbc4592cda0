import { Module } from '@nestjs/common';
import { BACKGROUND_NICE } from '@docqa/common';
import { CatalogModule } from '@docqa/catalog';
import { SourcesModule } from '@docqa/sources';
import { IndexingAccountDeletionHook } from './api/account-deletion.hook';
import { CancelIndexing } from './api/cancel-indexing';
import { CheckSource } from './api/check-source';
import { DeleteDocsets } from './api/delete-docsets';
import { IndexingStatus } from './api/indexing-status';
import { IndexingWorkflowClient } from './api/indexing-workflow.client';
import { RetryDocument } from './api/retry-document';
import { RunLauncher } from './api/run-launcher';
import { StaleRunRecovery } from './api/stale-run.recovery';
import { StartIndexing } from './api/start-indexing';
import { UploadDocuments } from './api/upload-documents';
import { DocumentExtractor } from './extraction/extractor';
import { PdfExtractor } from './extraction/pdf-extractor';
import { DocumentPreparer } from './chunking/document-preparer';
import { DocumentLifecycleStore } from './persistence/document-lifecycle.store';
import { EmbeddingSpaceStore } from './persistence/embedding-space.store';
import { RunPlanningStore } from './persistence/run-planning.store';
import { RunStore } from './persistence/run.store';
import { DocsetPipeline } from './pipeline/docset-pipeline';
import { DocumentPipeline } from './pipeline/document-pipeline';
import { EmbeddingSpaceCheck } from './reembed/embedding-space.check';
import { ReembedService } from './reembed/reembed.service';
import { RunCredentials } from './pipeline/run-credentials';
import { DocumentSummarizer } from './summary/summarizer';

/** The indexing API's use cases: provided here and exported to the API's controller. */
const INDEXING_USE_CASES = [
  StartIndexing,
  CheckSource,
  CancelIndexing,
  RetryDocument,
  DeleteDocsets,
  IndexingStatus,
  UploadDocuments,
];

/**
 * Indexing: pipelines the worker's activities call, and the use cases behind the indexing API
 * (one class per endpoint group, sharing RunLauncher and the one Temporal adapter, IndexingWorkflowClient).
 * Needs ConfigModule, DbModule, TemporalModule, SearchModule and EmbeddingsModule in the application.
 */
@Module({
  imports: [CatalogModule, SourcesModule],
  providers: [
    RunStore,
    RunPlanningStore,
    DocumentLifecycleStore,
    EmbeddingSpaceStore,
    RunCredentials,
    {
      provide: PdfExtractor,
      useFactory: () => new PdfExtractor({ nice: BACKGROUND_NICE }),
    },
    DocumentExtractor,
    DocumentSummarizer,
    DocumentPreparer,
    DocsetPipeline,
    DocumentPipeline,
    IndexingWorkflowClient,
    StaleRunRecovery,
    RunLauncher,
    ...INDEXING_USE_CASES,
    IndexingAccountDeletionHook,
    ReembedService,
    EmbeddingSpaceCheck,
  ],
  exports: [DocsetPipeline, DocumentPipeline, ...INDEXING_USE_CASES, DocumentExtractor, ReembedService],
})
export class IndexingModule {}
