export * from './table-lines';
export * from './filing';
export * from './unicode';
export * from './date-tokens';
export * from './place-names';
export * from './terms';
export * from './question-scope';
export * from './parts-of-speech';
