import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { SourceType } from './document.entity';

export const RUN_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

@Entity('index_runs')
export class IndexRunEntity {
  /** The jobId returned to callers. */
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'account_id' }) accountId: number;
  @Column({ name: 'docset_name' }) docSetName: string;
  @Column({ name: 'workflow_id' }) workflowId: string;
  @Column({ name: 'source_type', type: 'text' }) sourceType: SourceType;
  @Column({ type: 'text', default: 'RUNNING' }) status: RunStatus;
  @Column({ type: 'jsonb', default: () => "'{}'" }) options: Record<string, unknown>;
  /** AES-GCM ciphertext of the request's source credentials (kept for re-sync), or null. */
  @Column({ name: 'credentials_enc', type: 'text', nullable: true }) credentialsEnc: string | null;
  @Column({ name: 'account_name', type: 'text', nullable: true }) accountName: string | null;
  @Column({ name: 'summary_model', type: 'text', nullable: true }) summaryModel: string | null;
  @Column({ type: 'jsonb', default: () => "'{}'" }) counters: Record<string, number>;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true }) finishedAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}

@Entity('mail_outbox')
export class MailOutboxEntity {
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'account_id', type: 'int', nullable: true }) accountId: number | null;
  @Column({ name: 'to_address' }) toAddress: string;
  @Column({ name: 'reply_to', type: 'text', nullable: true }) replyTo: string | null;
  @Column() subject: string;
  @Column({ type: 'text' }) body: string;
  @Column({ type: 'text', default: 'PENDING' }) status: 'PENDING' | 'SENT';
  @Column({ type: 'int', default: 0 }) attempts: number;
  @Column({ name: 'last_error', type: 'text', nullable: true }) lastError: string | null;
  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' }) nextAttemptAt: Date;
  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true }) sentAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}
