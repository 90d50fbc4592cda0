import { Injectable, Logger } from '@nestjs/common';
import { DomainError, ErrorCode, sha256Hex } from '@docqa/common';
import { CreateKeyCommand, UpdateKeyCommand } from '../commands';
import { ChatbotKeyRow, ChatbotRepository } from '../chatbot.repository';
import { chatbotKeyDisplayPrefix, generateChatbotKey, maskChatbotKey } from './chatbot-key-format';

export const MAX_LIVE_CHATBOT_KEYS = 20;

export interface ChatbotKeyView {
  id: number;
  name: string;
  /** Masked in listings; the full key only in the creation response. */
  key: string;
  allowed_origin: string | null;
  created_at: string;
}

function view(k: ChatbotKeyRow, key: string): ChatbotKeyView {
  return {
    id: k.id,
    name: k.name,
    key,
    allowed_origin: k.allowedOrigin,
    created_at: k.createdAt.toISOString(),
  };
}

/**
 * `cb_` chatbot keys of an account: `cb_` + 32 random bytes, stored as SHA-256 hex only (the key
 * is shown once, at creation, and cannot be recovered), optionally locked to one origin.
 */
@Injectable()
export class ChatbotKeysService {
  private readonly logger = new Logger('ChatbotKeys');

  constructor(private readonly repo: ChatbotRepository) {}

  async create(accountId: number, cmd: CreateKeyCommand): Promise<ChatbotKeyView> {
    if ((await this.repo.countLiveKeys(accountId)) >= MAX_LIVE_CHATBOT_KEYS) {
      throw new DomainError(
        ErrorCode.UNPROCESSABLE,
        `Validation failed: at most ${MAX_LIVE_CHATBOT_KEYS} live chatbot keys`,
        {},
        { base: [`at most ${MAX_LIVE_CHATBOT_KEYS} live chatbot keys; revoke one first`] },
      );
    }
    const key = generateChatbotKey();
    const row = await this.repo.insertKey({
      accountId,
      name: cmd.name,
      keyHash: sha256Hex(key),
      keyPrefix: chatbotKeyDisplayPrefix(key),
      allowedOrigin: cmd.allowedOrigin,
    });
    this.logger.log({ accountId, chatbotKeyId: row.id }, 'chatbot key created');
    return view(row, key);
  }

  async list(accountId: number): Promise<ChatbotKeyView[]> {
    return (await this.repo.listLiveKeys(accountId)).map((k) => view(k, maskChatbotKey(k.keyPrefix)));
  }

  async update(accountId: number, id: number, cmd: UpdateKeyCommand): Promise<ChatbotKeyView> {
    const row = await this.repo.updateKey(accountId, id, cmd);
    if (!row) throw DomainError.notFound('Chatbot key not found');
    this.logger.log({ accountId, chatbotKeyId: id }, 'chatbot key updated');
    return view(row, maskChatbotKey(row.keyPrefix));
  }

  async revoke(accountId: number, id: number): Promise<void> {
    if (!(await this.repo.revokeKey(accountId, id))) throw DomainError.notFound('Chatbot key not found');
    this.logger.log({ accountId, chatbotKeyId: id }, 'chatbot key revoked');
  }
}
