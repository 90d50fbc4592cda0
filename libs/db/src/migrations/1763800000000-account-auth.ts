import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Account API (issue #3): terms-of-service acceptance time, TOTP replay protection (the last
 * accepted time step), at most one live default token per user, and an index for purging old
 * rate-limit windows.
 */
export class AccountAuth1763800000000 implements MigrationInterface {
  name = 'AccountAuth1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN terms_accepted_at timestamptz`);
    await q.query(`ALTER TABLE users ADD COLUMN otp_last_step bigint`);
    await q.query(
      `CREATE UNIQUE INDEX api_tokens_one_default_uq ON api_tokens (user_id) WHERE is_default AND revoked_at IS NULL`,
    );
    await q.query(`CREATE INDEX rate_limit_windows_start_idx ON rate_limit_windows (window_start)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS rate_limit_windows_start_idx`);
    await q.query(`DROP INDEX IF EXISTS api_tokens_one_default_uq`);
    await q.query(`ALTER TABLE users DROP COLUMN IF EXISTS otp_last_step`);
    await q.query(`ALTER TABLE users DROP COLUMN IF EXISTS terms_accepted_at`);
  }
}
