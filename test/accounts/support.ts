import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { Client } from 'pg';
import type { TestApp } from '../support/app';

export interface Registered {
  id: number;
  email: string;
  password: string;
  name: string;
  token: string;
  tokenId: number;
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}@example.com`;
}

/** Registers a user through the API and returns their credentials. */
export async function register(app: TestApp, o: { email?: string; password?: string; name?: string } = {}) {
  const email = o.email ?? uniqueEmail();
  const password = o.password ?? `pw-${randomBytes(8).toString('hex')}`;
  const name = o.name ?? 'Test User';
  const res = await app.client.post('/api/v1/users', {
    user: { email, password, password_confirmation: password, name },
  });
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${res.text}`);
  const t = res.body.user.api_tokens[0];
  return { id: res.body.user.id, email, password, name, token: t.token, tokenId: t.id } as Registered;
}

export async function login(app: TestApp, email: string, password: string, otp_attempt?: string) {
  return app.client.post('/api/v1/auth', {
    email,
    password,
    ...(otp_attempt !== undefined ? { otp_attempt } : {}),
  });
}

/** A pg client on the app's own database (for assertions on rows). */
export async function dbClient(app: TestApp): Promise<Client> {
  const c = new Client({ connectionString: app.cfg.database.url });
  await c.connect();
  return c;
}

/** A TOTP code for `secret` at `offsetSteps` periods from now (codes are single-use per step). */
export function totpCode(secret: string, offsetSteps = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: Date.now() + offsetSteps * 30_000,
  });
}

/** Fails with the offending excerpt when `haystack` contains any needle. */
export function expectNoneOf(haystack: string, needles: string[], where: string): void {
  for (const n of needles) {
    if (!n) continue;
    const at = haystack.indexOf(n);
    if (at >= 0) {
      throw new Error(
        `${where} contains a secret (${n.slice(0, 6)}…): …${haystack.slice(Math.max(0, at - 80), at + 20)}…`,
      );
    }
  }
}
