export * from './entities';
export * from './migrations';
export * from './data-source';
export * from './db.module';
export * from './embedded/pglite-server';
export * from './sql-result';
