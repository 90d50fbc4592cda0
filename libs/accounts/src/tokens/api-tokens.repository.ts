import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { ApiTokenEntity, TokenScope } from '@docqa/db';
import { rowsOf } from '@docqa/db';

export interface NewApiToken {
  userId: number;
  accountId: number;
  name: string;
  tokenHash: string;
  tokenEnc: string;
  tokenPrefix: string;
  isDefault: boolean;
  scope: TokenScope | null;
}

/** API tokens. Every method is scoped to the owning user except the lookup by hash (authentication). */
@Injectable()
export class ApiTokensRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(ApiTokenEntity);
  }

  insert(m: EntityManager | undefined, t: NewApiToken): Promise<ApiTokenEntity> {
    return this.repo(m).save(this.repo(m).create(t));
  }

  /** The live token with this SHA-256 hash (authentication lookup). */
  findLiveByHash(tokenHash: string): Promise<ApiTokenEntity | null> {
    return this.repo().findOne({ where: { tokenHash, revokedAt: IsNull() } });
  }

  findLiveDefault(userId: number): Promise<ApiTokenEntity | null> {
    return this.repo().findOne({ where: { userId, isDefault: true, revokedAt: IsNull() } });
  }

  listLive(userId: number): Promise<ApiTokenEntity[]> {
    return this.repo().find({ where: { userId, revokedAt: IsNull() }, order: { id: 'ASC' } });
  }

  countLive(userId: number): Promise<number> {
    return this.repo().count({ where: { userId, revokedAt: IsNull() } });
  }

  /** Revokes one of the user's tokens and drops its ciphertext; false if it is not theirs or already revoked. */
  async revoke(userId: number, id: number): Promise<boolean> {
    const r = await this.ds.query(
      `UPDATE api_tokens SET revoked_at = now(), token_enc = ''
        WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id`,
      [id, userId],
    );
    return rowsOf(r).length === 1;
  }

  /** Records use at most once a minute per token, so authentication does not write on every request. */
  async touch(id: number): Promise<void> {
    await this.ds.query(
      `UPDATE api_tokens SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [id],
    );
  }
}
