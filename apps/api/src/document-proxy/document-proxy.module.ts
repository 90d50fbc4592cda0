import { Module } from '@nestjs/common';
import { AccountsModule } from '@docqa/accounts';
import { KeywordRoutingController } from './keyword-routing.controller';

/** Document API surface (`/api/v1/document_proxy`): retrieval-side endpoints. */
@Module({
  imports: [AccountsModule],
  controllers: [KeywordRoutingController],
})
export class DocumentProxyModule {}
