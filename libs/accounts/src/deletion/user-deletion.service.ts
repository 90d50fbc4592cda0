import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError, ErrorCode } from '@docqa/common';
import { AccountsRepository } from '../accounts/accounts.repository';
import { loginEmailKey } from '../login/login.service';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { AccountSecrets } from '../secrets';
import { UsersRepository } from '../users/users.repository';
import { AccountDeletionHooks } from './account-deletion-hooks';

/**
 * `DELETE /me`: removes the user and their data immediately.
 *
 * - Accounts that go with the user ("solely owned"): the personal account and every account with
 *   no other member. Deletion hooks run for each first (search chunks, open indexing runs), then
 *   one transaction deletes them; documents, pages, runs, chatbot keys, tokens and memberships
 *   cascade in the database. If a hook fails, nothing is deleted from the database and the
 *   request answers 503 (hooks are idempotent, so a retry is safe).
 * - Accounts other members keep: the user's membership goes; if the user owned one, ownership
 *   passes to its longest-standing other member.
 * - The user row, every API token of the user and their login throttle counters are deleted.
 */
@Injectable()
export class UserDeletionService {
  private readonly logger = new Logger('UserDeletion');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly users: UsersRepository,
    private readonly accounts: AccountsRepository,
    private readonly hooks: AccountDeletionHooks,
    private readonly limiter: RateLimiter,
    private readonly secrets: AccountSecrets,
  ) {}

  async deleteUser(userId: number): Promise<Record<string, never>> {
    const user = await this.users.findById(userId);
    if (!user) throw DomainError.unauthenticated('Invalid API token');
    const { sole } = await this.accounts.membershipsForDeletion(userId);
    try {
      for (const accountId of sole) await this.hooks.beforeAccountDeleted(accountId);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      // The registry logged which hook failed. Nothing was deleted from the database yet.
      throw new DomainError(
        ErrorCode.DEPENDENCY_UNAVAILABLE,
        'The account could not be deleted right now; nothing was deleted. Try again later.',
      );
    }
    await this.ds.transaction(async (m) => {
      // Re-read inside the transaction: membership may have changed while hooks ran.
      const now = await this.accounts.membershipsForDeletion(userId, m);
      await this.accounts.transferOwnership(m, userId, now.shared);
      await this.accounts.deleteAccounts(m, now.sole);
      await this.users.delete(m, userId);
    });
    await this.limiter.forget([loginEmailKey(this.secrets, user.email)]);
    this.logger.log({ userId, deletedAccounts: sole.length }, 'user deleted');
    return {};
  }
}
