// Deterministic workflow code only. The worker bundles this file (and what it imports).
export * from './diagnostics.workflow';
export * from './index-docset.workflow';
export * from './index-document.workflow';
