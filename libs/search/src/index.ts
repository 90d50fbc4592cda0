export * from './search.port';
export * from './search.module';
export * from './elasticsearch.adapter';
export * from './embedded.adapter';
