import { Injectable, Logger } from '@nestjs/common';
import { constantTimeEqual, DomainError, ErrorCode, sha256Hex } from '@docqa/common';
import { bearerFrom, bearerUnauthenticated, RateLimiter, rateLimited } from '@docqa/accounts';
import type { Plan } from '@docqa/db';
import { ChatbotRepository } from '../chatbot.repository';
import { looksLikeChatbotKey } from '../keys/chatbot-key-format';
import { ChatbotClock } from './chatbot-clock';
import { requestOrigin } from './origin';
import { CHATBOT_RATE_WINDOW_SECONDS, chatbotLimitOf } from './plans';

/** The caller of a chatbot endpoint, once its key, plan, origin and rate limit were checked. */
export interface ChatbotCaller {
  keyId: number;
  accountId: number;
  plan: Plan;
  supportEmail: string | null;
  /** Docsets the widget answers from; null means every docset of the account. */
  docSetNames: string[] | null;
  /** Origin of the request (Origin, else Referer), when it had one. */
  origin: string | null;
}

export interface ChatbotRequestHeaders {
  authorization?: string | string[];
  origin?: string | string[];
  referer?: string | string[];
}

const unauthenticated = (message: string): DomainError => bearerUnauthenticated(message, 'docqa-chatbot');

/** Rate-limit counter key of one chatbot key (shared by both chatbot endpoints). */
export function chatbotRateKey(keyId: number): string {
  return `chatbot:key:${keyId}`;
}

/**
 * Admission of a chatbot request, in this order: 401 unless the bearer is a live `cb_` key (API
 * tokens included), 403 PLAN_REQUIRED unless the account is on Pro or Business, 403
 * ORIGIN_NOT_ALLOWED when the key is locked to an origin and the request's Origin (or Referer's
 * origin) is absent or different. The hourly counter is not touched here: `countRequest` takes one
 * hit once the request is valid and about to be answered (or its support e-mail queued), so only
 * those requests count against the plan's limit (429 past it).
 */
@Injectable()
export class ChatbotAccessService {
  private readonly logger = new Logger('ChatbotAccess');

  constructor(
    private readonly repo: ChatbotRepository,
    private readonly limiter: RateLimiter,
    private readonly clock: ChatbotClock,
  ) {}

  async admit(h: ChatbotRequestHeaders): Promise<ChatbotCaller> {
    const bearer = bearerFrom(h.authorization);
    if (!bearer) throw unauthenticated('Missing or invalid authorization header');
    if (!looksLikeChatbotKey(bearer)) throw unauthenticated('This endpoint accepts only a cb_ chatbot key');
    const hash = sha256Hex(bearer);
    const key = await this.repo.findLiveKeyByHash(hash);
    if (!key || !constantTimeEqual(key.keyHash, hash)) throw unauthenticated('Invalid chatbot key');

    const limit = chatbotLimitOf(key.plan);
    if (limit === null)
      throw new DomainError(ErrorCode.PLAN_REQUIRED, 'The chatbot needs a Pro or Business plan');

    const origin = requestOrigin(h.origin, h.referer);
    if (key.allowedOrigin && origin !== key.allowedOrigin) {
      this.logger.warn(
        { chatbotKeyId: key.id, origin },
        'chatbot request from an origin the key does not allow',
      );
      throw new DomainError(
        ErrorCode.ORIGIN_NOT_ALLOWED,
        origin
          ? `Origin ${origin} is not allowed for this chatbot key`
          : 'This chatbot key needs an Origin or Referer',
      );
    }

    return {
      keyId: key.id,
      accountId: key.accountId,
      plan: key.plan,
      supportEmail: key.supportEmail,
      docSetNames: key.chatbotDocsets,
      origin,
    };
  }

  /**
   * One hit on the key's hourly counter in Postgres (atomic, shared by every replica): 429 past the
   * plan's limit. Called by the answer and support e-mail services after validation, right before
   * the work the limit protects.
   */
  async countRequest(caller: ChatbotCaller): Promise<void> {
    const limit = chatbotLimitOf(caller.plan);
    if (limit === null)
      throw new DomainError(ErrorCode.PLAN_REQUIRED, 'The chatbot needs a Pro or Business plan');
    const now = this.clock.now();
    const hit = await this.limiter.hit(
      { key: chatbotRateKey(caller.keyId), limit, windowSeconds: CHATBOT_RATE_WINDOW_SECONDS },
      now,
    );
    if (!hit.allowed)
      throw rateLimited(hit, `Rate limit of ${limit} requests per hour for this chatbot key exceeded`, now);
  }
}
