/** Port of the chunk index. Adapters: Elasticsearch (production) and the embedded engine. */
export const SEARCH_INDEX = Symbol('SEARCH_INDEX');

export type SearchEngineName = 'elasticsearch' | 'embedded';

export interface EngineHealth {
  engine: SearchEngineName;
  up: boolean;
  detail?: string;
}

export interface SearchIndex {
  readonly engine: SearchEngineName;
  /** Cheap liveness check used by /health. Never throws. */
  health(): Promise<EngineHealth>;
  /** Releases connections and file handles. */
  close(): Promise<void>;
}
