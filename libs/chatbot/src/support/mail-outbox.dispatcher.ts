import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { MAIL_CONFIG, MailConfig } from '@docqa/common';
import { MailOutboxRepository, OutboxMessage } from './mail-outbox.repository';
import { SmtpMailer } from './smtp-mailer';

/** Messages one poll claims. */
/**
 * Support e-mail delivery (docs/chatbot.md, docs/adr/0046-chatbot-design.md): each api process
 * polls the outbox every 2 s; a message SMTP did not accept is retried after 5 s, doubling up to
 * 15 minutes, so a relay outage of hours loses nothing and costs few attempts.
 */
export const MAIL_OUTBOX_POLL_MS = 2000;
export const MAIL_RETRY_BASE_MS = 5000;
export const MAIL_RETRY_MAX_MS = 15 * 60 * 1000;

const BATCH = 10;
/** Longer than any single SMTP attempt (connect + greeting + socket timeouts), so leases never overlap. */
const LEASE_MS = 5 * 60 * 1000;
const KEEP_SENT_DAYS = 7;
const PURGE_EVERY_MS = 60 * 60 * 1000;

/** Delay before attempt `attempts + 1`: base doubling per attempt, capped, with up to 20% jitter. */
export function retryDelayMs(attempts: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exp = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), maxMs);
  return Math.round(Math.min(maxMs, exp * (1 + 0.2 * random())));
}

/** Error text for `last_error` and logs: the SMTP response code and command, never credentials. */
function describe(err: unknown): string {
  const e = err as { code?: string; responseCode?: number; command?: string; name?: string };
  return [e?.name ?? 'Error', e?.code, e?.responseCode, e?.command].filter(Boolean).join(' ');
}

/**
 * Delivers the mail outbox in each api process: polls every MAIL_OUTBOX_POLL_MS (and right after a
 * message is queued), claims due messages with SELECT ... FOR UPDATE SKIP LOCKED, sends each via
 * SMTP, and retries failures with exponential backoff (MAIL_RETRY_BASE_MS .. MAIL_RETRY_MAX_MS)
 * until SMTP accepts them. Idle when SMTP_URL is unset.
 */
@Injectable()
export class MailOutboxDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MailOutbox');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private lastPurge = 0;

  constructor(
    private readonly outbox: MailOutboxRepository,
    private readonly mailer: SmtpMailer,
    @Inject(MAIL_CONFIG) private readonly mail: MailConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.mailer.configured) return;
    this.timer = setInterval(() => this.kick(), this.mail.outboxPollMs ?? MAIL_OUTBOX_POLL_MS);
    this.timer.unref();
    this.kick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Runs a delivery pass now (or right after the one in progress). */
  kick(): void {
    if (this.stopped || !this.mailer.configured) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((err: Error) => this.logger.warn({ errName: err?.name }, 'mail outbox pass failed'))
      .finally(() => {
        this.running = null;
        if (this.again && !this.stopped) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Delivers every message that is due, batch by batch. */
  private async drain(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const batch = await this.outbox.claimDue(BATCH, LEASE_MS);
      for (const m of batch) await this.deliver(m);
      if (batch.length < BATCH) break;
    }
    if (Date.now() - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = Date.now();
      await this.outbox.purgeSent(KEEP_SENT_DAYS);
    }
  }

  private async deliver(m: OutboxMessage): Promise<void> {
    try {
      await this.mailer.send({ to: m.toAddress, replyTo: m.replyTo, subject: m.subject, text: m.body });
    } catch (err) {
      const delay = retryDelayMs(
        m.attempts,
        this.mail.retryBaseMs ?? MAIL_RETRY_BASE_MS,
        this.mail.retryMaxMs ?? MAIL_RETRY_MAX_MS,
      );
      const reason = describe(err);
      this.logger.warn(
        { mailId: m.id, accountId: m.accountId, attempts: m.attempts, retryInMs: delay, reason },
        'support e-mail not delivered yet; will retry',
      );
      await this.outbox.markFailed(m.id, reason, delay);
      return;
    }
    await this.outbox.markSent(m.id);
    this.logger.log(
      { mailId: m.id, accountId: m.accountId, attempts: m.attempts },
      'support e-mail delivered',
    );
  }
}
