import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { MAIL_CONFIG, MailConfig } from '@docqa/common';

export interface OutgoingMail {
  to: string;
  replyTo: string | null;
  subject: string;
  text: string;
}

/** SMTP options from SMTP_URL: `smtp://[user:pass@]host[:port]` (STARTTLS when offered) or `smtps://` (TLS). */
export function smtpOptionsFromUrl(url: string): SMTPTransport.Options {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  if (!secure && u.protocol !== 'smtp:') throw new Error('SMTP_URL must be an smtp:// or smtps:// URL');
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    auth: u.username
      ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) }
      : undefined,
    // A stalled server must not hold a delivery attempt for minutes (nodemailer's defaults).
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  };
}

/** Sends one plain-text message through SMTP_URL with nodemailer. */
@Injectable()
export class SmtpMailer implements OnApplicationShutdown {
  private transport: Transporter<SMTPTransport.SentMessageInfo> | null = null;

  constructor(@Inject(MAIL_CONFIG) private readonly mail: MailConfig) {}

  get configured(): boolean {
    return !!this.mail.smtpUrl;
  }

  async send(mail: OutgoingMail): Promise<void> {
    if (!this.mail.smtpUrl) throw new Error('SMTP is not configured');
    this.transport ??= createTransport(smtpOptionsFromUrl(this.mail.smtpUrl));
    await this.transport.sendMail({
      from: this.mail.from,
      to: mail.to,
      replyTo: mail.replyTo ?? undefined,
      subject: mail.subject,
      text: mail.text,
    });
  }

  onApplicationShutdown(): void {
    this.transport?.close();
    this.transport = null;
  }
}
