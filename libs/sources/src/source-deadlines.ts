/**
 * Time limit of one request to SharePoint or Google Drive (a download: with no byte received);
 * past it the run retries, then fails with the reason (docs/sources.md). The slice field
 * `SourcesConfig.requestTimeoutMs` overrides it for tests.
 */
export const SOURCE_REQUEST_TIMEOUT_MS = 60_000;
