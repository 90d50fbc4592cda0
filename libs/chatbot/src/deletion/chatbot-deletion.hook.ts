import { Injectable } from '@nestjs/common';
import { AccountDeletionHook, AccountDeletionHookProvider, RateLimiter } from '@docqa/accounts';
import { chatbotRateKey } from '../access/chatbot-access.service';
import { ChatbotRepository } from '../chatbot.repository';

/**
 * Before an account is deleted: its chatbot keys' rate-limit counters (rate_limit_windows is keyed
 * by text, not by a foreign key, so it does not cascade). The keys and the account's queued
 * support mail go with the account's rows.
 */
@AccountDeletionHookProvider()
@Injectable()
export class ChatbotAccountDeletionHook implements AccountDeletionHook {
  constructor(
    private readonly repo: ChatbotRepository,
    private readonly limiter: RateLimiter,
  ) {}

  async beforeAccountDeleted(accountId: number): Promise<void> {
    const ids = await this.repo.allKeyIds(accountId);
    await this.limiter.forget(ids.map(chatbotRateKey));
  }
}
