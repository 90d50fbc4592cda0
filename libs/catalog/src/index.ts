export * from './catalog.module';
export * from './docset-name';
export * from './docset.catalog';
export * from './document.catalog';
export * from './document-queue.metrics';
export * from './status-counts';
export * from './embedding-spaces';
