import { Module } from '@nestjs/common';
import { CatalogModule } from '@docqa/catalog';
import { AskService } from './ask/ask.service';
import { DocumentsService } from './documents/documents.service';
import { SummaryService } from './summary/summary.service';

/**
 * Retrieval-augmented answers, conversation titles and the Document API's document reads (through
 * the catalog). Needs DbModule, SearchModule and LlmModule (global) in the application, and
 * AccountsModule for scopes.
 */
@Module({
  imports: [CatalogModule],
  providers: [AskService, SummaryService, DocumentsService],
  exports: [AskService, SummaryService, DocumentsService],
})
export class RagModule {}
