export * from './search.port';
export * from './search.errors';
export * from './fusion';
export * from './index-version';
export * from './keyword-routing';
export * from './search.module';
export * from './elasticsearch.adapter';
export * from './embedded.adapter';
