import 'reflect-metadata';
import { handleShutdownSignals, loadConfig, resolveAppSecret, withConfig } from '@docqa/common';
import { createApi } from './bootstrap/create-api';

/** Production API process: `node dist/apps/api/src/main.js`, N replicas; every dependency configured. */
async function main(): Promise<void> {
  const loaded = loadConfig();
  const cfg = withConfig(loaded, { core: { appSecret: resolveAppSecret(loaded.core) } });
  const api = await createApi(cfg);
  console.log(
    `DocQA API listening on https://localhost:${api.httpsPort} (plain HTTP ${api.httpPort} refuses)`,
  );
  handleShutdownSignals({ stop: () => api.close(), timeoutMs: cfg.core.shutdownTimeoutMs });
}

if (require.main === module) {
  main().catch((err: Error) => {
    console.error(`api failed to start: ${err.message}`);
    process.exit(1);
  });
}
