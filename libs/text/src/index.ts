export * from './table-lines';
