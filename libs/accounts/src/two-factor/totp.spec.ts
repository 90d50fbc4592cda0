import { TOTP } from 'otpauth';
import { matchTotp, newTotpSecret, totpFor } from './totp';

describe('TOTP helpers', () => {
  it('accepts the current code and its neighbours, with their step', () => {
    const secret = newTotpSecret();
    const now = Date.now();
    const step = TOTP.counter({ timestamp: now });
    const t = totpFor(secret, 'a@example.com');
    expect(matchTotp(secret, t.generate({ timestamp: now }), now)).toBe(step);
    expect(matchTotp(secret, t.generate({ timestamp: now - 30_000 }), now)).toBe(step - 1);
    expect(matchTotp(secret, t.generate({ timestamp: now + 30_000 }), now)).toBe(step + 1);
    expect(matchTotp(secret, t.generate({ timestamp: now - 120_000 }), now)).toBeNull();
  });

  it('refuses malformed codes and builds an otpauth URI', () => {
    const secret = newTotpSecret();
    expect(matchTotp(secret, 'abcdef')).toBeNull();
    expect(matchTotp(secret, '12345')).toBeNull();
    const uri = totpFor(secret, 'a@example.com').toString();
    expect(uri).toMatch(/^otpauth:\/\/totp\/DocQA:a%40example\.com\?/);
    expect(uri).toContain(`secret=${secret}`);
  });
});
