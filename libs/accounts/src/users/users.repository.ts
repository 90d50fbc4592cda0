import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation, rowsOf, UserEntity } from '@docqa/db';

/** Users. Uniqueness of e-mail is case-insensitive (unique index on lower(email)). */
@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(UserEntity);
  }

  /** Inserts a user; null when the e-mail is taken (in any letter case). */
  async insert(
    m: EntityManager,
    u: { email: string; name: string; passwordHash: string; termsAcceptedAt: Date | null },
  ): Promise<UserEntity | null> {
    try {
      return await this.repo(m).save(this.repo(m).create(u));
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
  }

  findById(id: number, m?: EntityManager): Promise<UserEntity | null> {
    return this.repo(m).findOne({ where: { id } });
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.repo().createQueryBuilder('u').where('lower(u.email) = lower(:email)', { email }).getOne();
  }

  async emailTaken(email: string): Promise<boolean> {
    const rows: unknown[] = await this.ds.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [
      email,
    ]);
    return rows.length > 0;
  }

  async updatePasswordHash(id: number, passwordHash: string): Promise<void> {
    await this.repo().update({ id }, { passwordHash });
  }

  /** Starts (or restarts) enrolment: a new secret, two-factor still off. */
  async setPendingOtpSecret(id: number, otpSecretEnc: string): Promise<void> {
    await this.repo().update({ id }, { otpSecretEnc, otpEnabled: false, otpLastStep: null });
  }

  async enableOtp(id: number): Promise<void> {
    await this.repo().update({ id }, { otpEnabled: true });
  }

  async disableOtp(id: number): Promise<void> {
    await this.repo().update({ id }, { otpEnabled: false, otpSecretEnc: null, otpLastStep: null });
  }

  /**
   * Records `step` as the last accepted TOTP step, atomically, only if it is newer than the last
   * one: false means the code was already used (replay).
   */
  async claimOtpStep(id: number, step: number): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(
      `UPDATE users SET otp_last_step = $2
        WHERE id = $1 AND (otp_last_step IS NULL OR otp_last_step < $2)
        RETURNING id`,
      [id, step],
    );
    return rowsOf(rows).length === 1;
  }

  async delete(m: EntityManager, id: number): Promise<void> {
    await m.query('DELETE FROM users WHERE id = $1', [id]);
  }
}
