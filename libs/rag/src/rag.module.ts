import { Module } from '@nestjs/common';
import { CatalogModule } from '@docqa/catalog';
import { AskService } from './ask/ask.service';
import { PassageReads } from './ask/passage-reads';
import { DocumentsService } from './documents/documents.service';
import { DocsetAccess } from './retrieval/docset-access';
import { RetrievalService } from './retrieval/retrieval.service';
import { SearchService } from './search/search.service';
import { SummaryService } from './summary/summary.service';

/**
 * Retrieval-augmented answers, retrieval on its own (/search), conversation titles and the Document API's document reads (through
 * the catalog). Needs DbModule, SearchModule, EmbeddingsModule and AnswersModule (global) in the application, and
 * AccountsModule for scopes.
 */
@Module({
  imports: [CatalogModule],
  providers: [
    DocsetAccess,
    RetrievalService,
    PassageReads,
    AskService,
    SearchService,
    SummaryService,
    DocumentsService,
  ],
  exports: [AskService, SearchService, SummaryService, DocumentsService],
})
export class RagModule {}
