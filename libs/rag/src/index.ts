export * from './ask/ask.types';
export * from './ask/ask.service';
export * from './ask/citations';
export * from './ask/usage';
export * from './documents/documents.service';
export * from './summary/summary.service';
export * from './rag.module';
