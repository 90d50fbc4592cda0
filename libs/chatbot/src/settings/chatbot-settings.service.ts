import { Injectable } from '@nestjs/common';
import { DocsetCatalog } from '@docqa/catalog';
import { DomainError } from '@docqa/common';
import { unprocessable } from '@docqa/accounts';
import type { Plan } from '@docqa/db';
import { UpdateSettingsCommand } from '../commands';
import { ChatbotRepository } from '../chatbot.repository';
import { chatbotLimitOf } from '../access/plans';

export interface ChatbotSettingsView {
  /** Set by an operator (`npm run cli -- plan set`), read-only here. */
  plan: Plan;
  /** Whether the plan includes the chatbot (Pro or Business). */
  chatbot_enabled: boolean;
  /** Requests per key per hour on this plan; null without the chatbot. */
  rate_limit_per_hour: number | null;
  support_email: string | null;
  /** Docsets the widget answers from; null means every docset of the account. */
  docset_names: string[] | null;
  /** The account's docsets now (those the widget would use when `docset_names` is null). */
  available_docsets: string[];
}

/** The account's chatbot settings: support e-mail address and the docsets the widget answers from. */
@Injectable()
export class ChatbotSettingsService {
  constructor(
    private readonly repo: ChatbotRepository,
    private readonly docsets: DocsetCatalog,
  ) {}

  async get(accountId: number): Promise<ChatbotSettingsView> {
    const account = await this.repo.getAccount(accountId);
    if (!account) throw DomainError.notFound('Account not found');
    const limit = chatbotLimitOf(account.plan);
    return {
      plan: account.plan,
      chatbot_enabled: limit !== null,
      rate_limit_per_hour: limit,
      support_email: account.supportEmail,
      docset_names: account.chatbotDocsets,
      available_docsets: await this.docsets.existingDocsetNamesOfAccount(accountId),
    };
  }

  /** 422 when a named docset is not (yet) a docset of the account. */
  async update(accountId: number, cmd: UpdateSettingsCommand): Promise<ChatbotSettingsView> {
    if (cmd.docSetNames) {
      const owned = new Set(await this.docsets.existingDocsetNamesOfAccount(accountId));
      const unknown = cmd.docSetNames.filter((n) => !owned.has(n));
      if (unknown.length)
        throw unprocessable({
          docset_names: [`must name docsets of this account (unknown: ${unknown.slice(0, 5).join(', ')})`],
        });
    }
    await this.repo.updateAccountSettings(accountId, cmd);
    return this.get(accountId);
  }
}
