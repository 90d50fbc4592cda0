import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError, ErrorCode } from '@docqa/common';
import { rowsOf } from '@docqa/db';

export interface RateLimitRule {
  /** Counter key, e.g. `login:ip:203.0.113.9`. Never put secrets or raw e-mail addresses here. */
  key: string;
  limit: number;
  windowSeconds: number;
}

export interface RateLimitHit {
  rule: RateLimitRule;
  count: number;
  windowStart: Date;
  resetAt: Date;
  allowed: boolean;
}

/** Old windows are purged at most this often per process. */
const PURGE_EVERY_MS = 10 * 60 * 1000;
const KEEP_WINDOWS_FOR = '2 days';

/**
 * Fixed-window counters in Postgres (`rate_limit_windows`), shared by every API replica. A hit is
 * one atomic upsert (`INSERT ... ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count`), so
 * concurrent requests can never slip past the limit. Used by login throttling; the chatbot
 * endpoints can use it for their plan limits.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger('RateLimiter');
  private lastPurge = 0;

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  static windowStart(now: number, windowSeconds: number): Date {
    const ms = windowSeconds * 1000;
    return new Date(Math.floor(now / ms) * ms);
  }

  /** Counts one event against the rule and says whether it is within the limit. */
  async hit(rule: RateLimitRule, now = Date.now()): Promise<RateLimitHit> {
    const windowStart = RateLimiter.windowStart(now, rule.windowSeconds);
    const rows = rowsOf<{ count: number }>(
      await this.ds.query(
        `INSERT INTO rate_limit_windows (key, window_start, count) VALUES ($1, $2, 1)
         ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
         RETURNING count`,
        [rule.key, windowStart],
      ),
    );
    this.maybePurge(now);
    const count = Number(rows[0]?.count ?? 0);
    const resetAt = new Date(windowStart.getTime() + rule.windowSeconds * 1000);
    return { rule, count, windowStart, resetAt, allowed: count <= rule.limit };
  }

  /** Takes back a hit (an attempt that turned out not to count, e.g. a successful login). */
  async refund(hit: RateLimitHit): Promise<void> {
    await this.ds.query(
      `UPDATE rate_limit_windows SET count = GREATEST(count - 1, 0) WHERE key = $1 AND window_start = $2`,
      [hit.rule.key, hit.windowStart],
    );
  }

  /** Removes every window of these keys (e.g. when the user they describe is deleted). */
  async forget(keys: string[]): Promise<void> {
    if (keys.length)
      await this.ds.query(`DELETE FROM rate_limit_windows WHERE key = ANY($1::text[])`, [keys]);
  }

  private maybePurge(now: number): void {
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    this.ds
      .query(`DELETE FROM rate_limit_windows WHERE window_start < now() - interval '${KEEP_WINDOWS_FOR}'`)
      .catch((err: Error) => this.logger.warn({ errName: err.name }, 'rate-limit purge failed'));
  }
}

/** 429 `{ error, limit, reset_at }` with Retry-After (seconds). */
export function rateLimited(hit: RateLimitHit, message: string, now = Date.now()): DomainError {
  const retryAfter = Math.max(1, Math.ceil((hit.resetAt.getTime() - now) / 1000));
  return new DomainError(
    ErrorCode.RATE_LIMITED,
    message,
    { limit: hit.rule.limit, reset_at: hit.resetAt.toISOString() },
    undefined,
    { 'Retry-After': String(retryAfter) },
  );
}
