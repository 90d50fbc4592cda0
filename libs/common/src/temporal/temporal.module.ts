import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { Client, Connection } from '@temporalio/client';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { TEMPORAL_CLIENT, TEMPORAL_CONNECTION } from './temporal.constants';

@Injectable()
class TemporalConnectionCloser implements OnApplicationShutdown {
  constructor(@Inject(TEMPORAL_CONNECTION) private readonly connection: Connection) {}
  async onApplicationShutdown(): Promise<void> {
    await this.connection.close();
  }
}

/**
 * Temporal client for the API. The connection is lazy so the API starts (and reports Temporal
 * down in /health) even when the Temporal frontend is not reachable yet.
 */
@Global()
@Module({
  providers: [
    {
      provide: TEMPORAL_CONNECTION,
      inject: [APP_CONFIG],
      useFactory: (cfg: AppConfig) =>
        Connection.lazy({ address: cfg.temporalAddress ?? 'localhost:7233', connectTimeout: '5s' }),
    },
    {
      provide: TEMPORAL_CLIENT,
      inject: [TEMPORAL_CONNECTION, APP_CONFIG],
      useFactory: (connection: Connection, cfg: AppConfig) =>
        new Client({ connection, namespace: cfg.temporalNamespace }),
    },
    TemporalConnectionCloser,
  ],
  exports: [TEMPORAL_CLIENT, TEMPORAL_CONNECTION],
})
export class TemporalModule {}
