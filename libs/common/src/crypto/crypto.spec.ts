import { constantTimeEqual, deriveKey, SecretBox, sha256Hex, Signer } from './crypto';

const SECRET = 'unit-secret-0123456789abcdef0123456789';

describe('crypto helpers', () => {
  it('derives distinct 32-byte keys per purpose and secret', () => {
    const a = deriveKey(SECRET, 'a');
    expect(a).toHaveLength(32);
    expect(a.equals(deriveKey(SECRET, 'a'))).toBe(true);
    expect(a.equals(deriveKey(SECRET, 'b'))).toBe(false);
    expect(a.equals(deriveKey(SECRET + 'x', 'a'))).toBe(false);
  });

  it('hashes with SHA-256 hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('compares strings in constant time', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });

  describe('SecretBox (AES-256-GCM)', () => {
    const box = new SecretBox(SECRET, 'tokens');

    it('round-trips and uses a fresh IV each time', () => {
      const a = box.encrypt('dq_secret', 'user:1');
      const b = box.encrypt('dq_secret', 'user:1');
      expect(a).not.toBe(b);
      expect(a.startsWith('v1.')).toBe(true);
      expect(a).not.toContain('dq_secret');
      expect(box.decrypt(a, 'user:1')).toBe('dq_secret');
    });

    it('refuses tampering, another aad, another purpose and another secret', () => {
      const c = box.encrypt('hello', 'user:1');
      const parts = c.split('.');
      const flipped = Buffer.from(parts[2], 'base64url');
      flipped[0] ^= 1;
      const tampered = [parts[0], parts[1], flipped.toString('base64url'), parts[3]].join('.');
      expect(() => box.decrypt(tampered, 'user:1')).toThrow();
      expect(() => box.decrypt(c, 'user:2')).toThrow();
      expect(() => new SecretBox(SECRET, 'other').decrypt(c, 'user:1')).toThrow();
      expect(() => new SecretBox(SECRET + 'x', 'tokens').decrypt(c, 'user:1')).toThrow();
      expect(() => box.decrypt('garbage')).toThrow();
    });
  });

  describe('Signer (HMAC-SHA256)', () => {
    it('signs and verifies', () => {
      const s = new Signer(SECRET, 'sgid');
      const sig = s.sign('gid://docqa/User/1');
      expect(s.verify('gid://docqa/User/1', sig)).toBe(true);
      expect(s.verify('gid://docqa/User/2', sig)).toBe(false);
      expect(new Signer(SECRET, 'other').verify('gid://docqa/User/1', sig)).toBe(false);
    });
  });
});
