export * from './table-lines';
export * from './filing';
