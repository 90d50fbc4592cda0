/**
 * Temporal failure types of the indexing activities and workflows. The error classes take their
 * `name` from these maps (libs/sources SourceError, libs/indexing DocumentRejectedError and
 * pipeline errors), and the workflows' retry policies list the permanent ones.
 */

/** Failure type of an indexDocumentWorkflow whose document ended ERROR (its message is the reason). */
export const DOCUMENT_FAILED = 'DocumentIndexingFailed';

/** A file that no retry will index, by rejection kind. */
export const REJECTED_DOCUMENT_FAILURE = {
  UNSUPPORTED: 'UnsupportedDocument',
  ENCRYPTED: 'EncryptedDocument',
  CORRUPT: 'CorruptDocument',
  EMPTY: 'EmptyDocument',
} as const;
export type RejectionKind = keyof typeof REJECTED_DOCUMENT_FAILURE;

/** Source failures by kind; only UNAVAILABLE is worth retrying. */
export const SOURCE_FAILURE = {
  ACCESS_DENIED: 'SourceAccessDenied',
  NOT_FOUND: 'SourceNotFound',
  UNAVAILABLE: 'SourceUnavailable',
  TOO_LARGE: 'DocumentTooLarge',
} as const;
export type SourceErrorKind = keyof typeof SOURCE_FAILURE;

/** Run-level failures no retry can fix. */
export const RUN_FAILURE = {
  SOURCE_EMPTY: 'SourceEmpty',
  RUN_GONE: 'RunGone',
  INVALID_CREDENTIALS: 'InvalidCredentials',
} as const;

/** An engine down for a while: retried with the activity's backoff. */
export const DEPENDENCY_UNAVAILABLE_FAILURE = 'DependencyUnavailable';

/** Failure types no retry can fix (Temporal `nonRetryableErrorTypes`). */
export const REJECTED_DOCUMENT_FAILURES = Object.values(REJECTED_DOCUMENT_FAILURE);
export const PERMANENT_SOURCE_FAILURES = [
  SOURCE_FAILURE.ACCESS_DENIED,
  SOURCE_FAILURE.NOT_FOUND,
  SOURCE_FAILURE.TOO_LARGE,
];
export const RUN_FAILURES = Object.values(RUN_FAILURE);
