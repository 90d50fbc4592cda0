import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/**
 * Generic crypto helpers. Every key is derived from APP_SECRET with HKDF-SHA256 and a purpose
 * label, so a key used to encrypt tokens can never verify a signature (and vice versa), and
 * rotating one purpose never needs a second secret.
 */
export function deriveKey(secret: string, purpose: string, length = 32): Buffer {
  if (!secret) throw new Error('deriveKey: empty secret');
  return Buffer.from(
    hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), `docqa:${purpose}`, length),
  );
}

/** SHA-256 of a UTF-8 string, lowercase hex (the lookup key of tokens and keys). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function hmacSha256(key: Buffer, value: string): Buffer {
  return createHmac('sha256', key).update(value, 'utf8').digest();
}

/** Constant-time string equality (lengths are compared first; equal-length inputs in constant time). */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  if (x.length !== y.length) {
    // Still spend the comparison so a length mismatch is not a shortcut.
    timingSafeEqual(x, x);
    return false;
  }
  return timingSafeEqual(x, y);
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM authenticated encryption. Output: `v1.<iv>.<ciphertext>.<tag>` (base64url), so the
 * format can change later without guessing. `aad` binds a ciphertext to its context (for example
 * the owning user id): a value copied to another row does not decrypt.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string, purpose: string) {
    this.key = deriveKey(secret, `aes-gcm:${purpose}`);
  }

  encrypt(plaintext: string, aad?: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
    const enc = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, iv.toString('base64url'), enc.toString('base64url'), tag.toString('base64url')].join(
      '.',
    );
  }

  /** Throws when the value was tampered with, was made with another key, or has another aad. */
  decrypt(box: string, aad?: string): string {
    const parts = box.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION)
      throw new Error('SecretBox: unsupported ciphertext format');
    const [, ivB64, encB64, tagB64] = parts;
    const iv = Buffer.from(ivB64, 'base64url');
    const tag = Buffer.from(tagB64, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
      throw new Error('SecretBox: malformed ciphertext');
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(encB64, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}

/**
 * HMAC-SHA256 signer for short strings: `sign(v)` gives a base64url MAC, `verify` checks it in
 * constant time.
 */
export class Signer {
  private readonly key: Buffer;

  constructor(secret: string, purpose: string) {
    this.key = deriveKey(secret, `hmac:${purpose}`);
  }

  sign(value: string): string {
    return hmacSha256(this.key, value).toString('base64url');
  }

  verify(value: string, signature: string): boolean {
    return constantTimeEqual(this.sign(value), signature);
  }
}
