import { Module } from '@nestjs/common';
import { IndexingModule } from '@docqa/indexing';
import { IndexingController } from './indexing.controller';

/** The indexing operations of the Document API. */
@Module({ imports: [IndexingModule], controllers: [IndexingController] })
export class IndexingApiModule {}
