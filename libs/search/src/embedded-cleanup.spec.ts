import { cleanupCutoff } from './embedded.adapter';

describe('cleanupCutoff (which table versions maintenance may drop)', () => {
  const now = 1_000_000_000;

  it('keeps the last keepMs of versions when no read is running', () => {
    expect(cleanupCutoff(now, 60_000, []).getTime()).toBe(now - 60_000);
  });

  it('keeps the version a running read may be reading, however old, with a second of margin', () => {
    const floors = [now - 5_000, now - 300_000, now - 20_000];
    expect(cleanupCutoff(now, 60_000, floors).getTime()).toBe(now - 301_000);
  });

  it('a read newer than keepMs changes nothing', () => {
    expect(cleanupCutoff(now, 60_000, [now - 2_000]).getTime()).toBe(now - 60_000);
  });

  it('never keeps more than ten minutes: a read stuck in the engine does not stop clean-up', () => {
    // 0: a read that started before this instance wrote anything (its version's age is unknown)
    expect(cleanupCutoff(now, 60_000, [0]).getTime()).toBe(now - 600_000);
    expect(cleanupCutoff(now, 3_600_000, []).getTime()).toBe(now - 600_000);
  });
});
