export * from './cohere-client';
export * from './cohere-retry';
