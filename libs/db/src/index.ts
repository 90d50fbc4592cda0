export * from './entities';
export * from './migrations';
export * from './repositories/documents.repository';
export * from './data-source';
export * from './db.module';
export * from './embedded/pglite-server';
export * from './metrics/document-queue.metrics';
