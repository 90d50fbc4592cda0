import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { rowsOf } from '@docqa/db';

export interface OutboxMessage {
  id: string;
  accountId: number | null;
  toAddress: string;
  replyTo: string | null;
  subject: string;
  body: string;
  /** Delivery attempts so far, this one included (claims count an attempt). */
  attempts: number;
}

/**
 * The mail outbox (`mail_outbox`): a message is written here first, in the request, and delivered
 * later by the dispatcher, so nothing is lost while SMTP is down or the process restarts.
 */
@Injectable()
export class MailOutboxRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async enqueue(m: {
    accountId: number;
    toAddress: string;
    replyTo: string | null;
    subject: string;
    body: string;
  }): Promise<string> {
    const id = randomUUID();
    await this.ds.query(
      `INSERT INTO mail_outbox (id, account_id, to_address, reply_to, subject, body)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, m.accountId, m.toAddress, m.replyTo, m.subject, m.body],
    );
    return id;
  }

  /**
   * Claims up to `limit` due messages for one delivery attempt each. `FOR UPDATE SKIP LOCKED`
   * makes concurrent claimers (other api replicas) take disjoint rows; the claim pushes
   * `next_attempt_at` out by `leaseMs`, so a message whose sender died mid-attempt is retried by
   * anyone after the lease, and no one else touches it before.
   */
  async claimDue(limit: number, leaseMs: number): Promise<OutboxMessage[]> {
    const rows = rowsOf(
      await this.ds.query(
        `UPDATE mail_outbox
            SET attempts = attempts + 1,
                next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
          WHERE id IN (SELECT id FROM mail_outbox
                        WHERE status = 'PENDING' AND next_attempt_at <= now()
                        ORDER BY next_attempt_at
                        LIMIT $1
                          FOR UPDATE SKIP LOCKED)
          RETURNING id, account_id, to_address, reply_to, subject, body, attempts`,
        [limit, leaseMs],
      ),
    );
    return rows.map((r) => ({
      id: String(r.id),
      accountId: r.account_id === null ? null : Number(r.account_id),
      toAddress: String(r.to_address),
      replyTo: (r.reply_to as string | null) ?? null,
      subject: String(r.subject),
      body: String(r.body),
      attempts: Number(r.attempts),
    }));
  }

  async markSent(id: string): Promise<void> {
    await this.ds.query(
      `UPDATE mail_outbox SET status = 'SENT', sent_at = now(), last_error = NULL WHERE id = $1`,
      [id],
    );
  }

  /** Records a failed attempt; the next one is due after `delayMs`. */
  async markFailed(id: string, error: string, delayMs: number): Promise<void> {
    await this.ds.query(
      `UPDATE mail_outbox
          SET last_error = $2, next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
        WHERE id = $1 AND status = 'PENDING'`,
      [id, error.slice(0, 500), delayMs],
    );
  }

  /** Deletes the account's messages, delivered or not (account deletion). */
  async deleteForAccount(accountId: number): Promise<void> {
    await this.ds.query(`DELETE FROM mail_outbox WHERE account_id = $1`, [accountId]);
  }

  /** Delivered messages are kept this long, then deleted (the outbox is a queue, not an archive). */
  async purgeSent(olderThanDays: number): Promise<void> {
    await this.ds.query(
      `DELETE FROM mail_outbox WHERE status = 'SENT' AND sent_at < now() - make_interval(days => $1)`,
      [olderThanDays],
    );
  }
}
