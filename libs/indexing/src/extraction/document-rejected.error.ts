import { KindError } from '@docqa/common';
import { REJECTED_DOCUMENT_FAILURE, type RejectionKind } from '@docqa/workflow-contract';

export type { RejectionKind };

/**
 * A file that no retry will index: unsupported type, password-protected, unreadable or without
 * text. The message is the readable reason stored in documents.error. `name` is the Temporal
 * failure type (REJECTED_DOCUMENT_FAILURE in the workflow contract).
 */
export class DocumentRejectedError extends KindError<RejectionKind> {
  constructor(kind: RejectionKind, message: string) {
    super(kind, message, REJECTED_DOCUMENT_FAILURE);
  }
}
