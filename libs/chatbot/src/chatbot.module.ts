import { Module } from '@nestjs/common';
import { CatalogModule } from '@docqa/catalog';
import { RagModule } from '@docqa/rag';
import { SourcesModule } from '@docqa/sources';
import { ChatbotAccessService } from './access/chatbot-access.service';
import { ChatbotClock } from './access/chatbot-clock';
import { ChatbotKeyGuard } from './access/chatbot-key.guard';
import { ChatbotAnswerService } from './answers/chatbot-answer.service';
import { ChatbotRepository } from './chatbot.repository';
import { ChatbotAccountDeletionHook } from './deletion/chatbot-deletion.hook';
import { ChatbotFilesService } from './files/chatbot-files.service';
import { ChatbotKeysService } from './keys/chatbot-keys.service';
import { ChatbotSettingsService } from './settings/chatbot-settings.service';
import { MailOutboxDispatcher } from './support/mail-outbox.dispatcher';
import { MailOutboxRepository } from './support/mail-outbox.repository';
import { SmtpMailer } from './support/smtp-mailer';
import { SupportMailService } from './support/support-mail.service';

/**
 * The chatbot surface's logic: settings and `cb_` keys, admission of chatbot requests (key, plan,
 * origin, hourly limit), answers through the ask pipeline with signed file links, and support
 * e-mail through the mail outbox. Needs ConfigModule, DbModule, SearchModule, EmbeddingsModule,
 * AnswersModule and AccountsModule (global) in the application.
 */
@Module({
  imports: [CatalogModule, RagModule, SourcesModule],
  providers: [
    ChatbotClock,
    ChatbotRepository,
    ChatbotKeysService,
    ChatbotSettingsService,
    ChatbotAccessService,
    ChatbotKeyGuard,
    ChatbotFilesService,
    ChatbotAnswerService,
    SmtpMailer,
    MailOutboxRepository,
    MailOutboxDispatcher,
    SupportMailService,
    ChatbotAccountDeletionHook,
  ],
  exports: [
    ChatbotClock,
    ChatbotKeysService,
    ChatbotSettingsService,
    ChatbotAccessService,
    ChatbotKeyGuard,
    ChatbotFilesService,
    ChatbotAnswerService,
    SupportMailService,
    MailOutboxDispatcher,
  ],
})
export class ChatbotModule {}
