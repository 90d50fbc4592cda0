import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { Request } from 'express';
import { DomainError } from '@docqa/common';
import { ChatbotAccessService, ChatbotCaller } from './chatbot-access.service';

type ChatbotRequest = Request & { chatbot?: ChatbotCaller };

/** Guard of the two chatbot endpoints: see ChatbotAccessService for what it checks and in which order. */
@Injectable()
export class ChatbotKeyGuard implements CanActivate {
  constructor(private readonly access: ChatbotAccessService) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<ChatbotRequest>();
    req.chatbot = await this.access.admit({
      authorization: req.headers.authorization,
      origin: req.headers.origin,
      referer: req.headers.referer,
    });
    return true;
  }
}

/** Guards a handler with ChatbotKeyGuard (and documents the bearer scheme). */
export const ChatbotKeyAuth = (): ClassDecorator & MethodDecorator =>
  applyDecorators(UseGuards(ChatbotKeyGuard), ApiBearerAuth());

/** The ChatbotCaller ChatbotKeyGuard attached to the request. */
export const CurrentChatbot = createParamDecorator((_data: unknown, ctx: ExecutionContext): ChatbotCaller => {
  const caller = ctx.switchToHttp().getRequest<ChatbotRequest>().chatbot;
  if (!caller) throw DomainError.unauthenticated();
  return caller;
});
