import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger, LoggerModule } from 'nestjs-pino';
import {
  AppConfig,
  ConfigModule,
  handleShutdownSignals,
  loadConfig,
  logDestination,
  MetricsModule,
  pinoOptions,
  shutdownTracker,
  TemporalModule,
  ShutdownModule,
  WorkDrains,
} from '@docqa/common';
import { DbModule } from '@docqa/db';
import { AnswersModule } from '@docqa/answers';
import { EmbeddingsModule } from '@docqa/embeddings';
import { SearchModule } from '@docqa/search';
import { WorkerModule } from './worker.module';

/** Production worker process: `node dist/apps/worker/main.js`, N replicas. */
export async function startWorker(cfg: AppConfig) {
  @Module({
    imports: [
      ConfigModule.forRoot(cfg),
      ShutdownModule,
      LoggerModule.forRoot({ pinoHttp: [pinoOptions(cfg.core.logLevel), logDestination(cfg.core.logFile)] }),
      DbModule,
      MetricsModule,
      TemporalModule,
      EmbeddingsModule,
      AnswersModule,
      SearchModule,
      WorkerModule,
    ],
  })
  class WorkerAppModule {}
  const app = await NestFactory.createApplicationContext(WorkerAppModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  await app.init();
  return app;
}

if (require.main === module) {
  const cfg = loadConfig();
  startWorker(cfg)
    .then((app) => {
      handleShutdownSignals({
        stop: async () => {
          await app.get(WorkDrains).drainAll();
          await shutdownTracker.step('application modules', () => app.close());
        },
        timeoutMs: cfg.core.shutdownTimeoutMs,
      });
    })
    .catch((err: Error) => {
      console.error(`worker failed to start: ${err.message}`);
      process.exit(1);
    });
}
