import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Where first-run provisioning caches what it installs (Temporal CLI, models, the model converter's
 * venv): the configured DOCQA_CACHE_DIR, else the environment's, else ~/.cache/docqa.
 * scripts/setup/common.js computes the same path.
 */
export function docqaCacheDir(configured?: string): string {
  const dir = configured || process.env.DOCQA_CACHE_DIR;
  return dir ? path.resolve(dir) : path.join(os.homedir(), '.cache', 'docqa');
}
