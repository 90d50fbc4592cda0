import { Injectable } from '@nestjs/common';
import { AccountDeletionHook, AccountDeletionHookProvider } from '@docqa/accounts';
import { IndexingService } from './indexing.service';

/**
 * Before an account is deleted: cancel its indexing runs (waiting for them to stop) and remove its
 * chunks from the search index, then its documents and runs. Idempotent.
 */
@AccountDeletionHookProvider()
@Injectable()
export class IndexingAccountDeletionHook implements AccountDeletionHook {
  constructor(private readonly indexing: IndexingService) {}

  beforeAccountDeleted(accountId: number): Promise<void> {
    return this.indexing.deleteAccountData(accountId);
  }
}
