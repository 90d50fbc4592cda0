import { Global, Module } from '@nestjs/common';
import { AppConfig, loadConfig } from './app-config';

export const APP_CONFIG = Symbol('APP_CONFIG');

/** Global module: every provider may inject `@Inject(APP_CONFIG) cfg: AppConfig`. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config?: AppConfig) {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config ?? loadConfig() }],
      exports: [APP_CONFIG],
    };
  }
}
