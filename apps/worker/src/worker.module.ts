import { Module } from '@nestjs/common';
import { ACTIVITY_CLASSES } from './activities';
import { TemporalWorkerService } from './temporal-worker.service';

/** Hosts the Temporal worker; imported by the worker app, and by the API in embedded mode. */
@Module({ providers: [...ACTIVITY_CLASSES, TemporalWorkerService] })
export class WorkerModule {}
