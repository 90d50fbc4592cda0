import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type Plan = 'free' | 'pro' | 'business';

@Entity('accounts')
export class AccountEntity {
  @PrimaryGeneratedColumn() id: number;
  @Column() name: string;
  @Column({ default: false }) personal: boolean;
  @Column({ name: 'owner_id', type: 'int', nullable: true }) ownerId: number | null;
  @Column({ type: 'text', default: 'free' }) plan: Plan;
  @Column({ name: 'support_email', type: 'text', nullable: true }) supportEmail: string | null;
  /** Docsets the chatbot widget answers from; null means all of the account's docsets. */
  @Column({ name: 'chatbot_docsets', type: 'jsonb', nullable: true }) chatbotDocsets: string[] | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}

@Entity('account_users')
export class AccountUserEntity {
  @PrimaryGeneratedColumn() id: number;
  @Column({ name: 'account_id' }) accountId: number;
  @Column({ name: 'user_id' }) userId: number;
  @Column({ type: 'text', default: 'owner' }) role: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}
