import { Module } from '@nestjs/common';
import { AccountsModule } from '@docqa/accounts';
import { RagModule } from '@docqa/rag';
import { AskController } from './ask.controller';
import { DocumentsController } from './documents.controller';
import { KeywordRoutingController } from './keyword-routing.controller';
import { SearchController } from './search.controller';

/** Document API surface (`/api/v1/document_proxy`): questions, search, titles and document reads. */
@Module({
  imports: [AccountsModule, RagModule],
  controllers: [KeywordRoutingController, AskController, SearchController, DocumentsController],
})
export class DocumentProxyModule {}
