import { Global, Inject, Injectable, Module } from '@nestjs/common';
import { AppConfig, loadConfig, publicBaseUrlOf } from './app-config';

export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * The base of absolute URLs in responses (PUBLIC_BASE_URL, else the local HTTPS address). The API
 * tells it the port it listens on once it does (HTTPS_PORT=0 picks a free one).
 */
@Injectable()
export class PublicBaseUrl {
  private listeningPort?: number;

  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {}

  listeningOn(port: number): void {
    this.listeningPort = port;
  }

  get(): string {
    return publicBaseUrlOf(this.cfg.server, this.listeningPort);
  }
}

/** Global module: every provider may inject `@Inject(APP_CONFIG) cfg: AppConfig` and read its slice. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config?: AppConfig) {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config ?? loadConfig() }, PublicBaseUrl],
      exports: [APP_CONFIG, PublicBaseUrl],
    };
  }
}
