export * from './activity-registry';
export * from './diagnostics.activities';
