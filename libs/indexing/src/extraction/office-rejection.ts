import type { RejectionKind } from '@docqa/workflow-contract';

/**
 * A deck or workbook no retry can read, as the Office readers throw it inside their thread (this
 * module loads nothing else there); DocumentExtractor turns it into a DocumentRejectedError.
 */
export class OfficeRejection extends Error {
  constructor(
    readonly kind: RejectionKind,
    message: string,
  ) {
    super(message);
    this.name = 'OfficeRejection';
  }
}
