// `npm run infra:install`: provisions every engine the e2e tests use (idempotent, cached).
require('./postgres').ensureInstalled();
require('./temporal').ensureInstalled();
require('./elasticsearch').ensureInstalled();
console.log('[infra] postgres, temporal and elasticsearch are installed');
