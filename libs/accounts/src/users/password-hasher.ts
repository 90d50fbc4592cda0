import { Injectable, OnModuleInit } from '@nestjs/common';
import * as argon2 from 'argon2';
import { randomBytes } from 'node:crypto';

/**
 * Password hashing with argon2id (OWASP parameters: 19 MiB, 2 passes, 1 lane). `verifyDummy`
 * spends the same work as a real verification, so an unknown e-mail and a wrong password take the
 * same time at login.
 */
export const ARGON2_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const;

@Injectable()
export class PasswordHasher implements OnModuleInit {
  private dummyHash?: Promise<string>;

  /** Prepares the dummy hash at start-up so the first unknown e-mail is not slower than the rest. */
  async onModuleInit(): Promise<void> {
    await this.dummy();
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= argon2.hash(randomBytes(24).toString('base64url'), ARGON2_OPTIONS);
    return this.dummyHash;
  }

  hash(password: string): Promise<string> {
    return argon2.hash(password, ARGON2_OPTIONS);
  }

  async verify(hash: string, password: string): Promise<boolean> {
    try {
      return await argon2.verify(hash, password);
    } catch {
      return false;
    }
  }

  /** Burns one verification against a random hash with the same parameters; always false. */
  async verifyDummy(password: string): Promise<false> {
    await this.verify(await this.dummy(), password);
    return false;
  }
}
