import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_CONFIG, DatabaseConfig } from '@docqa/common';
import { DATABASE_POOL_WAIT_MS, dataSourceOptions } from './data-source';

/**
 * TypeORM over `pg`. DATABASE_URL is required here: in embedded mode the launcher starts PGlite
 * first and fills it in. Migrations run at start-up (never `synchronize`).
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [DATABASE_CONFIG],
      useFactory: (database: DatabaseConfig) => {
        if (!database.url)
          throw new Error('DATABASE_URL is not set and the embedded database was not started');
        return {
          ...dataSourceOptions({
            url: database.url,
            poolSize: database.poolSize,
            poolWaitMs: database.poolWaitMs ?? DATABASE_POOL_WAIT_MS,
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
