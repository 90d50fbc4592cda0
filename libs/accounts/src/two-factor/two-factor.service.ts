import { Injectable, Logger } from '@nestjs/common';
import { DomainError, ErrorCode } from '@docqa/common';
import { UserEntity } from '@docqa/db';
import { DisableTwoFactorCommand, unprocessable } from '../commands';
import { AccountSecrets } from '../secrets';
import { PasswordHasher } from '../users/password-hasher';
import { UsersRepository } from '../users/users.repository';
import { matchTotp, newTotpSecret, totpFor } from './totp';

export interface Enrolment {
  otpauth_uri: string;
  secret: string;
}

/**
 * Extension: TOTP two-factor authentication (enrol, confirm, disable). The secret is stored as
 * AES-256-GCM ciphertext bound to the user; each code is accepted once (the last accepted time
 * step is recorded atomically).
 */
@Injectable()
export class TwoFactorService {
  private readonly logger = new Logger('TwoFactor');

  constructor(
    private readonly users: UsersRepository,
    private readonly secrets: AccountSecrets,
    private readonly hasher: PasswordHasher,
  ) {}

  private aad(userId: number): string {
    return `totp:user:${userId}`;
  }

  private async user(userId: number): Promise<UserEntity> {
    const u = await this.users.findById(userId);
    if (!u) throw DomainError.unauthenticated('Invalid API token');
    return u;
  }

  /** Starts enrolment (or restarts an unconfirmed one). 409 when two-factor is already on. */
  async enrol(userId: number): Promise<Enrolment> {
    const u = await this.user(userId);
    if (u.otpEnabled)
      throw new DomainError(ErrorCode.CONFLICT, 'Two-factor authentication is already enabled');
    const secret = newTotpSecret();
    await this.users.setPendingOtpSecret(userId, this.secrets.otp.encrypt(secret, this.aad(userId)));
    this.logger.log({ userId }, 'two-factor enrolment started');
    return { otpauth_uri: totpFor(secret, u.email).toString(), secret };
  }

  /** Confirms enrolment with a current code; from then on login needs `otp_attempt`. */
  async confirm(userId: number, code: string): Promise<{ success: true; two_factor_enabled: true }> {
    const u = await this.user(userId);
    if (u.otpEnabled)
      throw new DomainError(ErrorCode.CONFLICT, 'Two-factor authentication is already enabled');
    if (!u.otpSecretEnc) {
      throw unprocessable({ otp_attempt: ['has no pending enrolment; call POST /api/v1/two_factor first'] });
    }
    if (!(await this.codeMatches(u, code))) throw unprocessable({ otp_attempt: ['is invalid'] });
    await this.users.enableOtp(userId);
    this.logger.log({ userId }, 'two-factor enabled');
    return { success: true, two_factor_enabled: true };
  }

  /** Turns two-factor off with a current code or the account password. */
  async disable(
    userId: number,
    cmd: DisableTwoFactorCommand,
  ): Promise<{ success: true; two_factor_enabled: false }> {
    const u = await this.user(userId);
    if (!u.otpEnabled) throw new DomainError(ErrorCode.CONFLICT, 'Two-factor authentication is not enabled');
    if (cmd.otpAttempt !== undefined) {
      if (!(await this.codeMatches(u, cmd.otpAttempt))) throw unprocessable({ otp_attempt: ['is invalid'] });
    } else if (!(await this.hasher.verify(u.passwordHash, cmd.password ?? ''))) {
      throw unprocessable({ password: ['is invalid'] });
    }
    await this.users.disableOtp(userId);
    this.logger.log({ userId }, 'two-factor disabled');
    return { success: true, two_factor_enabled: false };
  }

  /** Checks a code against the user's secret and consumes its time step (no replays). */
  async codeMatches(u: UserEntity, code: string, now = Date.now()): Promise<boolean> {
    if (!u.otpSecretEnc) return false;
    let secret: string;
    try {
      secret = this.secrets.otp.decrypt(u.otpSecretEnc, this.aad(u.id));
    } catch {
      this.logger.warn({ userId: u.id }, 'two-factor secret does not decrypt');
      return false;
    }
    const step = matchTotp(secret, code, now);
    if (step === null) return false;
    return this.users.claimOtpStep(u.id, step);
  }
}
