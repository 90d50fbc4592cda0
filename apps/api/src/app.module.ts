import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import {
  AllExceptionsFilter,
  AppConfig,
  ConfigModule,
  httpLoggerParams,
  MetricsModule,
  ShutdownModule,
  TemporalModule,
} from '@docqa/common';
import { DocumentQueueMetrics } from '@docqa/catalog';
import { DbModule } from '@docqa/db';
import { AnswersModule } from '@docqa/answers';
import { EmbeddingsModule } from '@docqa/embeddings';
import { SearchModule } from '@docqa/search';
import { AccountsApiModule } from './accounts/accounts-api.module';
import { ChatbotApiModule } from './chatbot/chatbot-api.module';
import { WidgetModule } from './widget/widget.module';
import { DocumentProxyModule } from './document-proxy/document-proxy.module';
import { HealthModule } from './health/health.module';
import { IndexingApiModule } from './indexing/indexing-api.module';

/**
 * Surface modules of the API; each later capability adds its module here. IndexingApiModule comes
 * before DocumentProxyModule so `GET documents/indexing-summary` is matched before `documents/:id`.
 */
const SURFACE_MODULES: Type[] = [
  HealthModule,
  AccountsApiModule,
  IndexingApiModule,
  DocumentProxyModule,
  ChatbotApiModule,
  WidgetModule,
];

@Module({})
export class AppModule {
  /** `extra` lets the embedded launcher host the Temporal worker in the same process. */
  static register(cfg: AppConfig, extra: Array<Type | DynamicModule> = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(cfg),
        ShutdownModule,
        LoggerModule.forRoot(httpLoggerParams(cfg.core.logLevel, cfg.core.logFile)),
        DbModule,
        MetricsModule,
        TemporalModule,
        EmbeddingsModule,
        AnswersModule,
        SearchModule,
        ...SURFACE_MODULES,
        ...extra,
      ],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }, DocumentQueueMetrics],
    };
  }
}
