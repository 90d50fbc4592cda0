import { Injectable, Logger } from '@nestjs/common';
import { DomainError, ErrorCode } from '@docqa/common';
import { ChatbotAccessService, ChatbotCaller } from '../access/chatbot-access.service';
import { SupportEmailCommand } from '../commands';
import { MailOutboxDispatcher } from './mail-outbox.dispatcher';
import { MailOutboxRepository } from './mail-outbox.repository';
import { SmtpMailer } from './smtp-mailer';

export interface SupportEmailResult {
  success: boolean;
  message: string;
}

/** The text of a support message as the account's support inbox receives it. */
export function supportMailText(cmd: SupportEmailCommand, origin: string | null): string {
  return [
    'A visitor sent this message through your DocQA chatbot widget.',
    '',
    `From: ${cmd.senderEmail ?? '(no e-mail address given)'}`,
    `Website: ${origin ?? '(unknown)'}`,
    '',
    '----------------------------------------',
    cmd.message,
    '----------------------------------------',
    '',
    cmd.senderEmail
      ? 'Reply to this e-mail to answer the visitor.'
      : 'The visitor left no address to reply to.',
  ].join('\n');
}

/**
 * `POST /api/v1/support_emails`: the message goes into the mail outbox (in the request), then the
 * dispatcher delivers it to the account's support address by SMTP, retrying until it is accepted.
 * 503 when SMTP is not configured or the account has no support address (such a request does not
 * count against the hourly limit; a queued one does).
 */
@Injectable()
export class SupportMailService {
  private readonly logger = new Logger('SupportMail');

  constructor(
    private readonly mailer: SmtpMailer,
    private readonly outbox: MailOutboxRepository,
    private readonly dispatcher: MailOutboxDispatcher,
    private readonly access: ChatbotAccessService,
  ) {}

  async submit(caller: ChatbotCaller, cmd: SupportEmailCommand): Promise<SupportEmailResult> {
    if (!this.mailer.configured)
      throw new DomainError(
        ErrorCode.CAPABILITY_DISABLED,
        'Support e-mail is not available: SMTP is not configured',
      );
    if (!caller.supportEmail)
      throw new DomainError(
        ErrorCode.CAPABILITY_DISABLED,
        'Support e-mail is not available: this account has no support address',
      );
    await this.access.countRequest(caller); // it reaches a support e-mail: it counts
    const id = await this.outbox.enqueue({
      accountId: caller.accountId,
      toAddress: caller.supportEmail,
      replyTo: cmd.senderEmail,
      subject: 'Support request from your website chatbot',
      body: supportMailText(cmd, caller.origin),
    });
    this.logger.log(
      { mailId: id, accountId: caller.accountId, chatbotKeyId: caller.keyId },
      'support e-mail queued',
    );
    this.dispatcher.kick();
    return { success: true, message: 'Your message has been sent to support.' };
  }
}
