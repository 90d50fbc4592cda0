import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { NativeConnection, Runtime, Worker, DefaultLogger } from '@temporalio/worker';
import * as path from 'node:path';
import { APP_CONFIG, AppConfig } from '@docqa/common';
import { activitiesOf } from '@docqa/indexing';
import { ACTIVITY_CLASSES } from './activities';
import { temporalTelemetryOptions } from './temporal-metrics';

/** Path of the workflow entry point, in source (ts-jest/swc) and in dist alike. */
export const WORKFLOWS_PATH = require.resolve(path.join(__dirname, '../../../workflows/src'));

let runtimeInstalled = false;

/**
 * Runs the Temporal worker inside a Nest application context: activities are Nest providers,
 * bound into the worker's activity map. Stops with the application.
 */
@Injectable()
export class TemporalWorkerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('TemporalWorker');
  private worker?: Worker;
  private connection?: NativeConnection;
  private running?: Promise<void>;

  constructor(
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  activities(): Record<string, (...args: never[]) => Promise<unknown>> {
    const all: Record<string, (...args: never[]) => Promise<unknown>> = {};
    for (const cls of ACTIVITY_CLASSES)
      Object.assign(all, activitiesOf(this.moduleRef.get(cls, { strict: false })));
    return all;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!runtimeInstalled) {
      runtimeInstalled = true;
      Runtime.install({
        logger: new DefaultLogger('WARN'),
        telemetryOptions: await temporalTelemetryOptions(this.cfg),
      });
    }
    this.connection = await NativeConnection.connect({
      address: this.cfg.temporalAddress ?? 'localhost:7233',
    });
    this.worker = await Worker.create({
      connection: this.connection,
      namespace: this.cfg.temporalNamespace,
      taskQueue: this.cfg.temporalTaskQueue,
      workflowsPath: WORKFLOWS_PATH,
      activities: this.activities(),
      shutdownGraceTime: '10s',
    });
    this.running = this.worker.run();
    this.running.catch((err: Error) =>
      this.logger.error({ errName: err.name, errMessage: err.message }, 'worker stopped'),
    );
    this.logger.log(`worker polling task queue ${this.cfg.temporalTaskQueue}`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.worker && this.worker.getState() === 'RUNNING') this.worker.shutdown();
    await this.running?.catch(() => undefined);
    await this.connection?.close();
  }
}
