import { Global, Inject, Injectable, Module } from '@nestjs/common';
import { AppConfig, loadConfig, publicBaseUrlOf, ServerConfig } from './app-config';

/** The whole configuration: for the entry points (apps/) that wire the libs. */
export const APP_CONFIG = Symbol('APP_CONFIG');
/** One slice each: a lib injects its own (and `CORE_CONFIG`), never another lib's. */
export const CORE_CONFIG = Symbol('CORE_CONFIG');
export const SERVER_CONFIG = Symbol('SERVER_CONFIG');
export const ACCOUNTS_CONFIG = Symbol('ACCOUNTS_CONFIG');
export const DATABASE_CONFIG = Symbol('DATABASE_CONFIG');
export const TEMPORAL_CONFIG = Symbol('TEMPORAL_CONFIG');
export const SEARCH_CONFIG = Symbol('SEARCH_CONFIG');
export const INDEXING_CONFIG = Symbol('INDEXING_CONFIG');
export const SOURCES_CONFIG = Symbol('SOURCES_CONFIG');
export const MODELS_CONFIG = Symbol('MODELS_CONFIG');
export const MAIL_CONFIG = Symbol('MAIL_CONFIG');
export const METRICS_CONFIG = Symbol('METRICS_CONFIG');

function configProviders(cfg: AppConfig) {
  return [
    { provide: APP_CONFIG, useValue: cfg },
    { provide: CORE_CONFIG, useValue: cfg.core },
    { provide: SERVER_CONFIG, useValue: cfg.server },
    { provide: ACCOUNTS_CONFIG, useValue: cfg.accounts },
    { provide: DATABASE_CONFIG, useValue: cfg.database },
    { provide: TEMPORAL_CONFIG, useValue: cfg.temporal },
    { provide: SEARCH_CONFIG, useValue: cfg.search },
    { provide: INDEXING_CONFIG, useValue: cfg.indexing },
    { provide: SOURCES_CONFIG, useValue: cfg.sources },
    { provide: MODELS_CONFIG, useValue: cfg.models },
    { provide: MAIL_CONFIG, useValue: cfg.mail },
    { provide: METRICS_CONFIG, useValue: cfg.metrics },
  ];
}

/**
 * The base of absolute URLs in responses (PUBLIC_BASE_URL, else the local HTTPS address). The API
 * tells it the port it listens on once it does (HTTPS_PORT=0 picks a free one).
 */
@Injectable()
export class PublicBaseUrl {
  private listeningPort?: number;

  constructor(@Inject(SERVER_CONFIG) private readonly server: ServerConfig) {}

  listeningOn(port: number): void {
    this.listeningPort = port;
  }

  get(): string {
    return publicBaseUrlOf(this.server, this.listeningPort);
  }
}

/** Global module: the whole configuration (APP_CONFIG) and each slice under its own token. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config?: AppConfig) {
    const providers = configProviders(config ?? loadConfig());
    return {
      module: ConfigModule,
      providers: [...providers, PublicBaseUrl],
      exports: [...providers.map((p) => p.provide), PublicBaseUrl],
    };
  }
}
