// Jest configuration of the SharePoint benchmark (npm run bench:sharepoint): the e2e project's
// transform, aliases and global setup (real Postgres, Temporal, Elasticsearch), matching only
// test/sources/*.bench.ts. Not part of `npm test`.
const path = require('node:path');
const root = require('../../jest.config.js');
const e2e = root.projects.find((p) => p.displayName === 'e2e');

module.exports = {
  rootDir: path.resolve(__dirname, '../..'),
  testTimeout: 4 * 3_600_000,
  ...e2e,
  displayName: 'bench',
  testMatch: ['<rootDir>/test/sources/*.bench.ts'],
};
