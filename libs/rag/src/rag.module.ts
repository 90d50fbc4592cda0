import { Module } from '@nestjs/common';
import { DocumentsRepository } from '@docqa/db';
import { AskService } from './ask/ask.service';
import { DocumentsService } from './documents/documents.service';
import { SummaryService } from './summary/summary.service';

/**
 * Retrieval-augmented answers, conversation titles and the Document API's document reads. Needs
 * DbModule, SearchModule and LlmModule (global) in the application, and AccountsModule for scopes.
 */
@Module({
  providers: [DocumentsRepository, AskService, SummaryService, DocumentsService],
  exports: [AskService, SummaryService, DocumentsService],
})
export class RagModule {}
