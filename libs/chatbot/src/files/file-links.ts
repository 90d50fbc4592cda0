import { Signer } from '@docqa/common';

export interface FileLinkClaims {
  accountId: number;
  documentId: string;
  /** Epoch seconds after which the link is refused. */
  expiresAt: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Signed, expiring tokens of the chatbot's file links: `base64url(JSON claims).HMAC-SHA256`, key
 * derived from APP_SECRET (purpose `chatbot-file-link`). The token names one document of one
 * account; nothing in it can be changed without breaking the signature.
 */
export class FileLinkSigner {
  private readonly signer: Signer;

  constructor(secret: string) {
    this.signer = new Signer(secret, 'chatbot-file-link');
  }

  sign(c: FileLinkClaims): string {
    const payload = Buffer.from(JSON.stringify({ a: c.accountId, d: c.documentId, e: c.expiresAt })).toString(
      'base64url',
    );
    return `${payload}.${this.signer.sign(payload)}`;
  }

  /** The claims of a valid, unexpired token; null for anything else. */
  verify(token: string, nowMs: number): FileLinkClaims | null {
    if (token.length > 512) return null;
    const dot = token.indexOf('.');
    if (dot <= 0) return null;
    const payload = token.slice(0, dot);
    const sig = token.slice(dot + 1);
    if (!this.signer.verify(payload, sig)) return null;
    let raw: unknown;
    try {
      raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    const { a, d, e } = (raw ?? {}) as { a?: unknown; d?: unknown; e?: unknown };
    if (!Number.isInteger(a) || typeof d !== 'string' || !UUID.test(d) || !Number.isInteger(e)) return null;
    if ((e as number) * 1000 <= nowMs) return null;
    return { accountId: a as number, documentId: d, expiresAt: e as number };
  }
}
