import * as fs from 'node:fs';
import { EngineHealth, SearchIndex } from './search.port';

/** Embedded engine on disk under DATA_DIR/search (the engine itself lands with the search issue). */
export class EmbeddedSearchIndex implements SearchIndex {
  readonly engine = 'embedded' as const;

  constructor(private readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }

  async health(): Promise<EngineHealth> {
    try {
      fs.accessSync(this.dir, fs.constants.W_OK);
      return { engine: this.engine, up: true, detail: this.dir };
    } catch {
      return { engine: this.engine, up: false, detail: 'data directory not writable' };
    }
  }

  async close(): Promise<void> {}
}
