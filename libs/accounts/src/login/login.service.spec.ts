import { DomainError, ErrorCode } from '@docqa/common';
import { RateLimitHit, RateLimitRule } from '../rate-limit/rate-limiter';
import { AccountSecrets } from '../secrets';
import { INVALID_LOGIN, LoginService, OTP_REQUIRED } from './login.service';

/** In-memory stand-ins: the real thing runs against Postgres in test/accounts. */
function setup(opts: { otpEnabled?: boolean } = {}) {
  const calls: string[] = [];
  const counts = new Map<string, number>();
  const user = {
    id: 1,
    email: 'a@b.co',
    passwordHash: 'HASH',
    otpEnabled: !!opts.otpEnabled,
    otpSecretEnc: 'x',
  };
  const users = { findByEmail: async (e: string) => (e.toLowerCase() === 'a@b.co' ? user : null) };
  const accounts = { personalAccountId: async () => 10 };
  const hasher = {
    verify: async (_h: string, p: string) => {
      calls.push('verify');
      return p === 'right-password';
    },
    verifyDummy: async () => {
      calls.push('verifyDummy');
      return false as const;
    },
  };
  const tokens = { defaultToken: async () => 'dq_default' };
  const twoFactor = { codeMatches: async (_u: unknown, code: string) => code === '123456' };
  const limiter = {
    hit: async (rule: RateLimitRule): Promise<RateLimitHit> => {
      const count = (counts.get(rule.key) ?? 0) + 1;
      counts.set(rule.key, count);
      return {
        rule,
        count,
        windowStart: new Date(0),
        resetAt: new Date(900_000),
        allowed: count <= rule.limit,
      };
    },
    refund: async (h: RateLimitHit) => {
      counts.set(h.rule.key, (counts.get(h.rule.key) ?? 1) - 1);
    },
  };
  const secrets = { throttleHash: (v: string) => `h(${v})` } as unknown as AccountSecrets;
  const svc = new LoginService(
    users as never,
    accounts as never,
    hasher as never,
    tokens as never,
    twoFactor as never,
    limiter as never,
    secrets,
  );
  return { svc, calls, counts };
}

async function error(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    return e as DomainError;
  }
  throw new Error('expected a failure');
}

describe('LoginService', () => {
  it('spends a dummy verification on unknown e-mails and answers with the same text', async () => {
    const { svc, calls } = setup();
    const unknown = await error(svc.login({ email: 'x@y.co', password: 'right-password' }, '1.1.1.1'));
    const wrong = await error(svc.login({ email: 'a@b.co', password: 'wrong-password' }, '1.1.1.1'));
    expect(calls).toEqual(['verifyDummy', 'verify']);
    expect(unknown.code).toBe(ErrorCode.UNAUTHENTICATED);
    expect(wrong.code).toBe(ErrorCode.UNAUTHENTICATED);
    expect(unknown.message).toBe(INVALID_LOGIN);
    expect(wrong.message).toBe(INVALID_LOGIN);
  });

  it('returns the default token and gives back the throttle slots on success', async () => {
    const { svc, counts } = setup();
    await expect(svc.login({ email: 'A@B.co', password: 'right-password' }, '1.1.1.1')).resolves.toEqual({
      token: 'dq_default',
    });
    expect([...counts.values()]).toEqual([0, 0]);
  });

  it('asks for the code when two-factor is on, refuses a wrong one', async () => {
    const { svc } = setup({ otpEnabled: true });
    const missing = await error(svc.login({ email: 'a@b.co', password: 'right-password' }, '1.1.1.1'));
    expect(missing.code).toBe(ErrorCode.OTP_REQUIRED);
    expect(missing.status).toBe(422);
    expect(missing.message).toBe(OTP_REQUIRED);
    const wrong = await error(
      svc.login({ email: 'a@b.co', password: 'right-password', otpAttempt: '000000' }, 'ip'),
    );
    expect(wrong.status).toBe(401);
    await expect(
      svc.login({ email: 'a@b.co', password: 'right-password', otpAttempt: '123456' }, 'ip'),
    ).resolves.toEqual({ token: 'dq_default' });
  });

  it('throttles after 10 failures for one e-mail, whatever the client address', async () => {
    const { svc } = setup();
    for (let i = 0; i < 10; i++) {
      expect((await error(svc.login({ email: 'a@b.co', password: 'nope' }, `10.0.0.${i}`))).status).toBe(401);
    }
    const throttled = await error(svc.login({ email: 'a@b.co', password: 'right-password' }, '10.0.0.99'));
    expect(throttled.status).toBe(429);
    expect(throttled.context).toEqual({ limit: 10, reset_at: new Date(900_000).toISOString() });
    expect(Number(throttled.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
  });
});
