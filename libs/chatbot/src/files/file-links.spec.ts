import { FileLinkSigner } from './file-links';

const DOC = '6f1c2b9e-8d3a-4c1f-9e2d-0a1b2c3d4e5f';

describe('FileLinkSigner', () => {
  const signer = new FileLinkSigner('test-secret-0123456789abcdef0123456789abcdef');
  const now = Date.UTC(2025, 0, 1, 12);
  const claims = { accountId: 7, documentId: DOC, expiresAt: now / 1000 + 60 };

  it('round-trips its own, unexpired tokens', () => {
    expect(signer.verify(signer.sign(claims), now)).toEqual(claims);
  });

  it('refuses expired, tampered, foreign or malformed tokens', () => {
    const token = signer.sign(claims);
    expect(signer.verify(token, now + 60_000)).toBeNull();
    const [payload, sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ a: 8, d: DOC, e: claims.expiresAt })).toString('base64url');
    expect(signer.verify(`${forged}.${sig}`, now)).toBeNull();
    expect(signer.verify(`${payload}.${sig.slice(0, -2)}xx`, now)).toBeNull();
    expect(new FileLinkSigner('another-secret-0123456789abcdef0123456789').verify(token, now)).toBeNull();
    for (const bad of ['', '.', 'abc', `${payload}.`, `.${sig}`, 'x'.repeat(600)])
      expect(signer.verify(bad, now)).toBeNull();
  });
});
