import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('users')
export class UserEntity {
  @PrimaryGeneratedColumn() id: number;
  /** Stored as given; uniqueness is on lower(email) (see migration). */
  @Column() email: string;
  @Column({ type: 'text', default: '' }) name: string;
  @Column({ name: 'password_hash' }) passwordHash: string;
  /** AES-GCM ciphertext of the TOTP secret; null until enrolment starts. */
  @Column({ name: 'otp_secret_enc', type: 'text', nullable: true }) otpSecretEnc: string | null;
  @Column({ name: 'otp_enabled', default: false }) otpEnabled: boolean;
  /** Last TOTP time step accepted (replay protection: a code is accepted once). */
  @Column({ name: 'otp_last_step', type: 'bigint', nullable: true }) otpLastStep: string | null;
  /** When the user accepted the terms of service at registration (null when not asked). */
  @Column({ name: 'terms_accepted_at', type: 'timestamptz', nullable: true }) termsAcceptedAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
