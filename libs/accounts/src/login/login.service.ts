import { Injectable, Logger } from '@nestjs/common';
import { DomainError, ErrorCode } from '@docqa/common';
import { AccountsRepository } from '../accounts/accounts.repository';
import { LoginCommand } from '../commands';
import { RateLimitHit, RateLimiter, RateLimitRule, rateLimited } from '../rate-limit/rate-limiter';
import { AccountSecrets } from '../secrets';
import { ApiTokensService } from '../tokens/api-tokens.service';
import { TwoFactorService } from '../two-factor/two-factor.service';
import { PasswordHasher } from '../users/password-hasher';
import { UsersRepository } from '../users/users.repository';

/** Failed logins allowed per window, per e-mail address and per client address. */
export const LOGIN_THROTTLE = { windowSeconds: 15 * 60, perEmail: 10, perClient: 50 } as const;

export const INVALID_LOGIN = 'Invalid email or password.';
export const INVALID_OTP = 'Invalid two-factor authentication code.';
export const OTP_REQUIRED = 'otp_attempt_required';

export function loginEmailKey(secrets: AccountSecrets, email: string): string {
  return `login:email:${secrets.throttleHash(email.trim().toLowerCase())}`;
}

/**
 * `POST /auth`. Every attempt first takes a slot in the e-mail and client-address windows (one
 * atomic upsert each); a successful password check gives the slots back, so only failures count.
 * Unknown e-mails and wrong passwords get the same text and the same argon2 work.
 */
@Injectable()
export class LoginService {
  private readonly logger = new Logger('Login');

  constructor(
    private readonly users: UsersRepository,
    private readonly accounts: AccountsRepository,
    private readonly hasher: PasswordHasher,
    private readonly tokens: ApiTokensService,
    private readonly twoFactor: TwoFactorService,
    private readonly limiter: RateLimiter,
    private readonly secrets: AccountSecrets,
  ) {}

  async login(cmd: LoginCommand, clientIp: string): Promise<{ token: string }> {
    const hits = await this.reserve(cmd.email, clientIp);
    const user = await this.users.findByEmail(cmd.email);
    const passwordOk = user
      ? await this.hasher.verify(user.passwordHash, cmd.password)
      : await this.hasher.verifyDummy(cmd.password);
    if (!user || !passwordOk) {
      this.logger.warn(
        { reason: user ? 'wrong password' : 'unknown email', userId: user?.id },
        'login failed',
      );
      throw DomainError.unauthenticated(INVALID_LOGIN);
    }
    if (user.otpEnabled) {
      if (cmd.otpAttempt === undefined) {
        await this.refund(hits);
        throw new DomainError(ErrorCode.OTP_REQUIRED, OTP_REQUIRED);
      }
      if (!(await this.twoFactor.codeMatches(user, cmd.otpAttempt))) {
        this.logger.warn({ reason: 'wrong two-factor code', userId: user.id }, 'login failed');
        throw DomainError.unauthenticated(INVALID_OTP);
      }
    }
    await this.refund(hits);
    const accountId = await this.accounts.personalAccountId(user.id);
    if (accountId === null) throw DomainError.unauthenticated(INVALID_LOGIN);
    const token = await this.tokens.defaultToken(user.id, accountId);
    this.logger.log({ userId: user.id }, 'login succeeded');
    return { token };
  }

  private async reserve(email: string, clientIp: string): Promise<RateLimitHit[]> {
    const rules: RateLimitRule[] = [
      {
        key: loginEmailKey(this.secrets, email),
        limit: LOGIN_THROTTLE.perEmail,
        windowSeconds: LOGIN_THROTTLE.windowSeconds,
      },
      {
        key: `login:ip:${clientIp}`,
        limit: LOGIN_THROTTLE.perClient,
        windowSeconds: LOGIN_THROTTLE.windowSeconds,
      },
    ];
    const hits = await Promise.all(rules.map((r) => this.limiter.hit(r)));
    const over = hits.find((h) => !h.allowed);
    if (over) {
      // A refused attempt is not an attempt: give back the slot it took in the other window.
      await this.refund(hits.filter((h) => h !== over && h.allowed));
      this.logger.warn({ scope: over === hits[0] ? 'email' : 'client' }, 'login throttled');
      throw rateLimited(over, 'Too many failed login attempts. Try again later.');
    }
    return hits;
  }

  private async refund(hits: RateLimitHit[]): Promise<void> {
    await Promise.all(hits.map((h) => this.limiter.refund(h)));
  }
}
