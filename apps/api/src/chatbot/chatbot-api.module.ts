import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { AccountsModule } from '@docqa/accounts';
import { ChatbotModule } from '@docqa/chatbot';
import { ChatbotCorsMiddleware, CHATBOT_CORS_PATHS } from './chatbot-cors.middleware';
import { ChatbotSettingsController } from './chatbot-settings.controller';
import { ChatbotController } from './chatbot.controller';

/**
 * Chatbot surface: `POST /api/v1/chatbot/ask_question`, `POST /api/v1/support_emails`, the signed
 * file links of citations, and (extensions) the account's chatbot settings and `cb_` keys. CORS
 * only on the two chatbot endpoints.
 */
@Module({
  imports: [AccountsModule, ChatbotModule],
  controllers: [ChatbotSettingsController, ChatbotController],
})
export class ChatbotApiModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(ChatbotCorsMiddleware)
      .forRoutes(...CHATBOT_CORS_PATHS.map((path) => ({ path: path.slice(1), method: RequestMethod.ALL })));
  }
}
