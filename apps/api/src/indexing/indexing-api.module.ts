import { Module } from '@nestjs/common';
import { IndexingModule } from '@docqa/indexing';
import { IndexingController } from './indexing.controller';
import { UploadController } from './upload.controller';

/** The indexing operations of the Document API. */
@Module({ imports: [IndexingModule], controllers: [IndexingController, UploadController] })
export class IndexingApiModule {}
