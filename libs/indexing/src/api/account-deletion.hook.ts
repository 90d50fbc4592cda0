import { Injectable } from '@nestjs/common';
import { AccountDeletionHook, AccountDeletionHookProvider } from '@docqa/accounts';
import { DeleteDocsets } from './delete-docsets';

/**
 * Before an account is deleted: cancel its indexing runs (waiting for them to stop) and remove its
 * chunks from the search index, then its documents and runs. Idempotent.
 */
@AccountDeletionHookProvider()
@Injectable()
export class IndexingAccountDeletionHook implements AccountDeletionHook {
  constructor(private readonly deleteDocsets: DeleteDocsets) {}

  beforeAccountDeleted(accountId: number): Promise<void> {
    return this.deleteDocsets.deleteAccountData(accountId);
  }
}
