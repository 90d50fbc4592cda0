import { retryDelayMs } from './mail-outbox.dispatcher';

describe('retryDelayMs', () => {
  it('doubles from the base per attempt, capped, with at most 20% jitter', () => {
    const none = () => 0;
    expect([1, 2, 3, 4, 5].map((a) => retryDelayMs(a, 5000, 900_000, none))).toEqual([
      5000, 10_000, 20_000, 40_000, 80_000,
    ]);
    expect(retryDelayMs(20, 5000, 900_000, none)).toBe(900_000);
    expect(retryDelayMs(1, 5000, 900_000, () => 1)).toBe(6000);
    expect(retryDelayMs(20, 5000, 900_000, () => 1)).toBe(900_000);
  });
});
