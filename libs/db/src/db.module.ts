import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '@docqa/common';
import { DATABASE_POOL_WAIT_MS, dataSourceOptions } from './data-source';

/**
 * TypeORM over `pg`. DATABASE_URL is required here: in embedded mode the launcher starts PGlite
 * first and fills it in. Migrations run at start-up (never `synchronize`).
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (cfg: AppConfig) => {
        if (!cfg.database.url)
          throw new Error('DATABASE_URL is not set and the embedded database was not started');
        return {
          ...dataSourceOptions({
            url: cfg.database.url,
            poolSize: cfg.database.poolSize,
            poolWaitMs: cfg.database.poolWaitMs ?? DATABASE_POOL_WAIT_MS,
          }),
          migrationsRun: true,
          retryAttempts: 3,
          retryDelay: 1000,
        };
      },
    }),
  ],
  exports: [TypeOrmModule],
})
export class DbModule {}
