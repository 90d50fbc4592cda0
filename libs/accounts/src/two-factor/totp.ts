import { Secret, TOTP } from 'otpauth';

/** RFC 6238 parameters every authenticator app understands. */
export const TOTP_ISSUER = 'DocQA';
export const TOTP_PERIOD = 30;
export const TOTP_DIGITS = 6;
/** Codes from one step before or after are accepted (clock drift). */
export const TOTP_WINDOW = 1;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function totpFor(secretBase32: string, label: string): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** The time step a valid code belongs to, or null when the code is wrong. */
export function matchTotp(secretBase32: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = totpFor(secretBase32, 'x');
  const delta = totp.validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  if (delta === null) return null;
  return totp.counter({ timestamp: now }) + delta;
}
