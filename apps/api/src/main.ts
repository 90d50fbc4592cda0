import 'reflect-metadata';
import { handleShutdownSignals, loadConfig, resolveAppSecret } from '@docqa/common';
import { createApi } from './bootstrap/create-api';

/** Production API process: `node dist/apps/api/src/main.js`, N replicas; every dependency configured. */
async function main(): Promise<void> {
  const cfg = loadConfig();
  cfg.appSecret = resolveAppSecret(cfg);
  const api = await createApi(cfg);
  console.log(
    `DocQA API listening on https://localhost:${api.httpsPort} (plain HTTP ${api.httpPort} refuses)`,
  );
  handleShutdownSignals({ stop: () => api.close(), timeoutMs: cfg.shutdownTimeoutMs });
}

if (require.main === module) {
  main().catch((err: Error) => {
    console.error(`api failed to start: ${err.message}`);
    process.exit(1);
  });
}
