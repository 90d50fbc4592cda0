import { DomainError, ErrorCode } from '@docqa/common';

/** One chunk the engine refused, with the engine's reason (never the chunk text). */
export interface ChunkFailure {
  id: string;
  reason: string;
}

/**
 * Some chunks of an upsert were not written. The others were, and chunk ids are deterministic,
 * so the caller (an indexing activity) can retry the whole batch safely.
 */
export class PartialIndexingError extends Error {
  constructor(
    readonly indexed: number,
    readonly failures: ChunkFailure[],
  ) {
    super(
      `${failures.length} of ${indexed + failures.length} chunks were not indexed` +
        (failures.length ? ` (first: ${failures[0].id}: ${failures[0].reason})` : ''),
    );
    this.name = 'PartialIndexingError';
  }
}

/**
 * The error a caller sees when the engine did not answer within a deadline: DEPENDENCY_UNAVAILABLE
 * (503 for the API, a retryable failure for indexing activities). The message names no internals;
 * the adapter logs which call it was.
 */
export function searchTimedOut(): DomainError {
  return new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Search engine did not answer in time');
}

/**
 * A write not tried because the engine is known not to take one now (see
 * SearchMaintenance.writesBlocked): DEPENDENCY_UNAVAILABLE, retryable like a missed deadline (an indexing
 * step waits before its next attempt, as for any unavailable dependency).
 */
export function searchWritesBlocked(): DomainError {
  return new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Search engine is not accepting writes');
}
