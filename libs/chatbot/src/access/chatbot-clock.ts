import { Injectable } from '@nestjs/common';

/**
 * The time the chatbot rate limits and file links use. A provider (not `Date.now()` inline) so
 * tests can move one running API through an hour without waiting: `app.get(ChatbotClock).set(t)`.
 */
@Injectable()
export class ChatbotClock {
  private fixed: number | null = null;
  private offset = 0;

  now(): number {
    return this.fixed ?? Date.now() + this.offset;
  }

  /** Pins the clock to `ms` (epoch milliseconds). */
  set(ms: number): void {
    this.fixed = ms;
  }

  /** Moves the clock forward (or back, negative) by `ms`. */
  advance(ms: number): void {
    if (this.fixed !== null) this.fixed += ms;
    else this.offset += ms;
  }

  /** Back to the real time. */
  reset(): void {
    this.fixed = null;
    this.offset = 0;
  }
}
