import { Injectable } from '@nestjs/common';
import { AccountDeletionHook, AccountDeletionHookProvider, RateLimiter } from '@docqa/accounts';
import { chatbotRateKey } from '../access/chatbot-access.service';
import { ChatbotRepository } from '../chatbot.repository';
import { MailOutboxRepository } from '../support/mail-outbox.repository';

/**
 * Before an account is deleted: its chatbot keys' rate-limit counters (rate_limit_windows is keyed
 * by text, not by a foreign key, so it does not cascade) and its support mail in the outbox (its
 * foreign key is ON DELETE SET NULL: the rows would stay, addressed to no account). The keys go
 * with the account's rows. A support message sent while the deletion runs, after this hook, is
 * kept with no account and delivered (the sender's request was accepted).
 */
@AccountDeletionHookProvider()
@Injectable()
export class ChatbotAccountDeletionHook implements AccountDeletionHook {
  constructor(
    private readonly repo: ChatbotRepository,
    private readonly limiter: RateLimiter,
    private readonly outbox: MailOutboxRepository,
  ) {}

  async beforeAccountDeleted(accountId: number): Promise<void> {
    const ids = await this.repo.allKeyIds(accountId);
    await this.limiter.forget(ids.map(chatbotRateKey));
    await this.outbox.deleteForAccount(accountId);
  }
}
