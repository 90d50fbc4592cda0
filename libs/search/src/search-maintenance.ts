import type { SearchIndex } from './search.port';

/**
 * What only some engines offer beside the SearchIndex port (today the embedded engine, whose
 * full-text indices trail its writes and whose writes take turns on a lock). Callers ask
 * `hasMaintenance(index)` first; for an engine without it (Elasticsearch: every write waits for
 * the refresh that makes it searchable, and each write finds the cluster's state out for itself)
 * there is nothing to wait for and no write is known to be blocked.
 */
export interface SearchMaintenance {
  /**
   * Brings the engine's ranking structures up to date with every write so far, so that ranking
   * right after an indexing run is the ranking of a quiet index (the embedded engine folds new
   * rows into its full-text indices). Never throws: maintenance failures are logged, and a later
   * write schedules it again.
   */
  settle(): Promise<void>;
  /**
   * Why a write would not get its turn now, known without calling the engine (a write running past
   * its deadline, or the write lock held longer than a writer may wait); undefined when a write
   * would be tried. Indexing asks before it embeds a batch, so a wedged engine costs a failed step
   * at once instead of an embedding thrown away at the lock.
   */
  writesBlocked(): string | undefined;
}

/** The index's engine has the SearchMaintenance capabilities. */
export function hasMaintenance(index: SearchIndex): index is SearchIndex & SearchMaintenance {
  const m = index as Partial<SearchMaintenance>;
  return typeof m.settle === 'function' && typeof m.writesBlocked === 'function';
}
