// The workflow contract: imported by the workflows (bundled, so workflow-safe packages only), the
// libs, the apps and the tests. test/infra and docker/ read its generated search-attributes.txt.
export * from './indexing.contract';
export * from './failures';
export * from './search-attributes';
