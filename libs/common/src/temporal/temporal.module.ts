import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { TemporalConfig } from '../config/app-config';
import { TEMPORAL_CONFIG } from '../config/config.module';
import { TEMPORAL_CLIENT, TEMPORAL_CONNECTION } from './temporal.constants';

const TEMPORAL_CONNECTION_STATE = Symbol('TEMPORAL_CONNECTION_STATE');

interface ConnectionState {
  closing: boolean;
}

@Injectable()
class TemporalConnectionCloser implements OnApplicationShutdown {
  constructor(
    @Inject(TEMPORAL_CONNECTION) private readonly connection: Connection,
    @Inject(TEMPORAL_CONNECTION_STATE) private readonly state: ConnectionState,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    // Calls cut off by the close must not be retried: a retry scheduled after the channel is
    // shut down throws from a timer, outside any caller.
    this.state.closing = true;
    // Close once retries already scheduled have fired (each now ends without a new retry);
    // the timer does not keep the process alive, and processes exit after shutdown anyway.
    setTimeout(() => {
      this.connection.close().catch(() => undefined);
    }, 30000).unref();
  }
}

/**
 * Temporal client for the API. The connection is lazy so the API starts (and reports Temporal
 * down in /health) even when the Temporal frontend is not reachable yet. It keeps the SDK's
 * default gRPC retry policy, except while the application shuts down.
 */
@Global()
@Module({
  providers: [
    {
      provide: TEMPORAL_CONNECTION_STATE,
      useFactory: (): ConnectionState => ({ closing: false }),
    },
    {
      provide: TEMPORAL_CONNECTION,
      inject: [TEMPORAL_CONFIG, TEMPORAL_CONNECTION_STATE],
      useFactory: (temporal: TemporalConfig, state: ConnectionState) => {
        const retry = defaultGrpcRetryOptions();
        return Connection.lazy({
          address: temporal.address ?? 'localhost:7233',
          connectTimeout: '5s',
          interceptors: [
            makeGrpcRetryInterceptor({
              ...retry,
              retryableDecider: (attempt, status) =>
                !state.closing && retry.retryableDecider(attempt, status),
            }),
          ],
        });
      },
    },
    {
      provide: TEMPORAL_CLIENT,
      inject: [TEMPORAL_CONNECTION, TEMPORAL_CONFIG],
      useFactory: (connection: Connection, temporal: TemporalConfig) =>
        new Client({ connection, namespace: temporal.namespace }),
    },
    TemporalConnectionCloser,
  ],
  exports: [TEMPORAL_CLIENT, TEMPORAL_CONNECTION],
})
export class TemporalModule {}
