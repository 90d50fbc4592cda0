export type RejectionKind = 'UNSUPPORTED' | 'ENCRYPTED' | 'CORRUPT' | 'EMPTY';

const NAMES: Record<RejectionKind, string> = {
  UNSUPPORTED: 'UnsupportedDocument',
  ENCRYPTED: 'EncryptedDocument',
  CORRUPT: 'CorruptDocument',
  EMPTY: 'EmptyDocument',
};

/**
 * A file that no retry will index: unsupported type, password-protected, unreadable or without
 * text. The message is the readable reason stored in documents.error. `name` is the Temporal
 * failure type (listed in the activities' nonRetryableErrorTypes).
 */
export class DocumentRejectedError extends Error {
  constructor(
    readonly kind: RejectionKind,
    message: string,
  ) {
    super(message);
    this.name = NAMES[kind];
  }
}

/** Failure types of rejected documents (Temporal `nonRetryableErrorTypes`). */
export const REJECTED_DOCUMENT_ERRORS = Object.values(NAMES);
