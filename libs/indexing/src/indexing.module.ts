import { Module } from '@nestjs/common';
import { CatalogModule } from '@docqa/catalog';
import { SourcesModule } from '@docqa/sources';
import { IndexingAccountDeletionHook } from './api/account-deletion.hook';
import { IndexingService } from './api/indexing.service';
import { DocumentExtractor } from './extraction/extractor';
import { PdfExtractor } from './extraction/pdf-extractor';
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

/**
 * Indexing: pipelines the worker's activities call, and the service behind the indexing API.
 * Needs ConfigModule, DbModule, TemporalModule, SearchModule and LlmModule in the application.
 */
@Module({
  imports: [CatalogModule, SourcesModule],
  providers: [
    RunStore,
    RunPlanningStore,
    DocumentLifecycleStore,
    EmbeddingSpaceStore,
    RunCredentials,
    { provide: PdfExtractor, useFactory: () => new PdfExtractor() },
    DocumentExtractor,
    DocumentSummarizer,
    DocsetPipeline,
    DocumentPipeline,
    IndexingService,
    IndexingAccountDeletionHook,
    ReembedService,
    EmbeddingSpaceCheck,
  ],
  exports: [DocsetPipeline, DocumentPipeline, IndexingService, DocumentExtractor, ReembedService],
})
export class IndexingModule {}
