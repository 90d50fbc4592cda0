import { ErrorCode } from '@docqa/common';
import { RateLimiter, rateLimited } from './rate-limiter';

describe('RateLimiter windows', () => {
  it('aligns fixed windows to multiples of their length', () => {
    const t = Date.UTC(2025, 0, 1, 12, 7, 31);
    expect(RateLimiter.windowStart(t, 900).toISOString()).toBe('2025-01-01T12:00:00.000Z');
    expect(RateLimiter.windowStart(t, 3600).toISOString()).toBe('2025-01-01T12:00:00.000Z');
    expect(RateLimiter.windowStart(Date.UTC(2025, 0, 1, 12, 15), 900).toISOString()).toBe(
      '2025-01-01T12:15:00.000Z',
    );
  });

  it('renders 429 with limit, reset_at and Retry-After', () => {
    const now = Date.UTC(2025, 0, 1, 12, 7, 30);
    const e = rateLimited(
      {
        rule: { key: 'k', limit: 10, windowSeconds: 900 },
        count: 11,
        windowStart: new Date(Date.UTC(2025, 0, 1, 12)),
        resetAt: new Date(Date.UTC(2025, 0, 1, 12, 15)),
        allowed: false,
      },
      'Too many',
      now,
    );
    expect(e.code).toBe(ErrorCode.RATE_LIMITED);
    expect(e.status).toBe(429);
    expect(e.context).toEqual({ limit: 10, reset_at: '2025-01-01T12:15:00.000Z' });
    expect(e.headers).toEqual({ 'Retry-After': '450' });
  });
});
