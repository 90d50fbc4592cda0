import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Context } from '@temporalio/activity';
import {
  ActivityInboundCallsInterceptor,
  ActivityExecuteInput,
  NativeConnection,
  Next,
  Worker,
} from '@temporalio/worker';
import {
  activityMonitor,
  APP_CONFIG,
  AppConfig,
  loggableError,
  shutdownTracker,
  WorkDrainer,
  WorkDrains,
} from '@docqa/common';
import { activitiesOf } from '@docqa/indexing';
import { ACTIVITY_CLASSES } from './activities';
import { temporalLogger } from './temporal-log';
import { installTemporalRuntime } from './temporal-metrics';
import { workflowCode } from './workflow-bundle';

/** Records each activity's start and end in the process's activity monitor (health, shutdown log). */
class MonitoredActivity implements ActivityInboundCallsInterceptor {
  constructor(private readonly ctx: Context) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>) {
    const info = this.ctx.info;
    activityMonitor.started(this.ctx, info.activityType, info.workflowExecution?.workflowId ?? '');
    try {
      return await next(input);
    } finally {
      activityMonitor.finished(this.ctx);
    }
  }
}

/**
 * Runs the Temporal worker inside a Nest application context: activities are Nest providers,
 * bound into the worker's activity map. Stops with the application.
 */
@Injectable()
export class TemporalWorkerService implements OnApplicationBootstrap, OnApplicationShutdown, WorkDrainer {
  private readonly logger = new Logger('TemporalWorker');
  private worker?: Worker;
  private connection?: NativeConnection;
  private running?: Promise<void>;
  private draining?: Promise<void>;

  constructor(
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly moduleRef: ModuleRef,
    @Optional() drains?: WorkDrains,
  ) {
    drains?.add(this);
  }

  activities(): Record<string, (...args: never[]) => Promise<unknown>> {
    const all: Record<string, (...args: never[]) => Promise<unknown>> = {};
    for (const cls of ACTIVITY_CLASSES)
      Object.assign(all, activitiesOf(this.moduleRef.get(cls, { strict: false })));
    return all;
  }

  async onApplicationBootstrap(): Promise<void> {
    await installTemporalRuntime(this.cfg, { logger: temporalLogger() });
    this.connection = await NativeConnection.connect({
      address: this.cfg.temporal.address ?? 'localhost:7233',
    });
    const code = workflowCode();
    this.logger.log(`workflow code: ${code.description}`);
    this.worker = await Worker.create({
      connection: this.connection,
      namespace: this.cfg.temporal.namespace,
      taskQueue: this.cfg.temporal.taskQueue,
      ...code.options,

      activities: this.activities(),
      interceptors: { activity: [(ctx) => ({ inbound: new MonitoredActivity(ctx) })] },
      maxConcurrentActivityTaskExecutions: this.cfg.indexing.workerMaxConcurrentActivities,
      // Shutdown within SHUTDOWN_TIMEOUT_MS: running activities get a fifth of it to finish, then
      // are cancelled (each stops within CANCEL_GRACE_MS); past three fifths the worker gives up.
      shutdownGraceTime: Math.round(this.cfg.core.shutdownTimeoutMs / 5),
      shutdownForceTime: Math.round((this.cfg.core.shutdownTimeoutMs * 3) / 5),
    });
    activityMonitor.attach(this.cfg.temporal.taskQueue);
    this.running = this.worker.run();
    this.running.catch((err: Error) => this.logger.error(loggableError(err), 'worker stopped'));
    this.logger.log(`worker polling task queue ${this.cfg.temporal.taskQueue}`);
  }

  /**
   * Stops polling, lets running activities finish within the grace time, then cancels them (each
   * stops within CANCEL_GRACE_MS); called before the application's modules close (WorkDrains).
   */
  drain(): Promise<void> {
    this.draining ??= this.stopWorker();
    return this.draining;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  private async stopWorker(): Promise<void> {
    activityMonitor.detach(this.cfg.temporal.taskQueue);
    await shutdownTracker.step(
      'temporal worker',
      async () => {
        if (this.worker && this.worker.getState() === 'RUNNING') this.worker.shutdown();
        await this.running?.catch((err: Error) => {
          const running = activityMonitor.describeRunning();
          const why = `${err.name}${running.length ? `; activities still running: ${running.join(', ')}` : ''}`;
          this.logger.warn(`worker did not stop cleanly: ${why}`);
          shutdownTracker.failed('temporal worker', why);
        });
        await this.connection?.close();
      },
      () => {
        const running = activityMonitor.describeRunning();
        return running.length ? `activities still running: ${running.join(', ')}` : undefined;
      },
    );
  }
}
