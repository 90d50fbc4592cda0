import { Module } from '@nestjs/common';
import { IndexingModule } from '@docqa/indexing';
import { ACTIVITY_CLASSES } from './activities';
import { TemporalWorkerService } from './temporal-worker.service';

/**
 * Hosts the Temporal worker; imported by the worker app, and by the API in embedded mode. The
 * modules imported here provide what the activity classes depend on.
 */
@Module({
  imports: [IndexingModule],
  providers: [...ACTIVITY_CLASSES, TemporalWorkerService],
})
export class WorkerModule {}
