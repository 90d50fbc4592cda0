// `npm run infra:install`: provisions every engine the e2e tests use (idempotent, cached).
require('./postgres').ensureInstalled();
require('./temporal').ensureInstalled();
require('./elasticsearch').ensureInstalled();
require('./s3').ensureInstalled();
require('./jemalloc').ensureInstalled();
console.log('[infra] postgres, temporal, elasticsearch, the local S3 server and jemalloc are installed');
require('../../scripts/models')
  .installModels(['embedder', 'bge-small'])
  .catch(() => process.exit(1));
