import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export interface TokenScope {
  /** read-and-ask only: no indexing, deletion or account changes. */
  readOnly?: boolean;
  /** Restrict to these docset names. */
  docSetNames?: string[];
}

@Entity('api_tokens')
export class ApiTokenEntity {
  @PrimaryGeneratedColumn() id: number;
  @Column({ name: 'user_id' }) userId: number;
  @Column({ name: 'account_id' }) accountId: number;
  @Column() name: string;
  /** SHA-256 of the token, hex: the lookup key. */
  @Column({ name: 'token_hash' }) tokenHash: string;
  /** AES-GCM ciphertext so login can return the same token. */
  @Column({ name: 'token_enc', type: 'text' }) tokenEnc: string;
  /** First characters for display in listings. */
  @Column({ name: 'token_prefix' }) tokenPrefix: string;
  @Column({ name: 'is_default', default: false }) isDefault: boolean;
  @Column({ type: 'jsonb', nullable: true }) scope: TokenScope | null;
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true }) lastUsedAt: Date | null;
  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true }) revokedAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

@Entity('chatbot_keys')
export class ChatbotKeyEntity {
  @PrimaryGeneratedColumn() id: number;
  @Column({ name: 'account_id' }) accountId: number;
  @Column({ type: 'text', default: '' }) name: string;
  @Column({ name: 'key_hash' }) keyHash: string;
  @Column({ name: 'key_prefix' }) keyPrefix: string;
  @Column({ name: 'allowed_origin', type: 'text', nullable: true }) allowedOrigin: string | null;
  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true }) revokedAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

@Entity('rate_limit_windows')
export class RateLimitWindowEntity {
  @Column({ primary: true }) key: string;
  @Column({ name: 'window_start', type: 'timestamptz', primary: true }) windowStart: Date;
  @Column({ type: 'int', default: 0 }) count: number;
}
