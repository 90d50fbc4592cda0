import { Inject, Injectable } from '@nestjs/common';
import {
  CORE_CONFIG,
  CoreConfig,
  hmacSha256,
  deriveKey,
  resolveAppSecret,
  SecretBox,
  Signer,
} from '@docqa/common';

/**
 * Keys of the Account API, all derived from APP_SECRET with a purpose label (libs/common crypto):
 * token ciphertexts, TOTP secret ciphertexts, signed global ids, avatar URL signatures and the
 * keyed hash that turns an e-mail into a rate-limit key (so the table holds no addresses).
 */
@Injectable()
export class AccountSecrets {
  readonly tokens: SecretBox;
  readonly otp: SecretBox;
  readonly sgid: Signer;
  readonly avatar: Signer;
  private readonly throttleKey: Buffer;

  constructor(@Inject(CORE_CONFIG) core: CoreConfig) {
    const secret = core.appSecret ?? resolveAppSecret(core);
    this.tokens = new SecretBox(secret, 'api-token');
    this.otp = new SecretBox(secret, 'totp-secret');
    this.sgid = new Signer(secret, 'sgid');
    this.avatar = new Signer(secret, 'avatar-url');
    this.throttleKey = deriveKey(secret, 'hmac:throttle-key');
  }

  /** Stable, non-reversible key material for throttling one e-mail address. */
  throttleHash(value: string): string {
    return hmacSha256(this.throttleKey, value).toString('hex').slice(0, 32);
  }
}
