import { createHash, createSign } from 'node:crypto';
import type { SourceFetch } from '../http/source-fetch';
import { SourceError } from '../source.port';
import type { GoogleDriveCredentials } from './gdrive-credentials';

export const DEFAULT_GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const DRIVE_READONLY_SCOPE = 'https://www.googleapis.com/auth/drive.readonly';

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/**
 * The signed JWT assertion of the OAuth 2.0 service-account flow (RFC 7523): RS256 over
 * `{ iss, scope, aud, iat, exp, sub? }`, signed locally with the key. google-auth-library's JWT
 * client posts to a fixed token URL, so the grant is done here to honour GOOGLE_TOKEN_URL.
 */
export function serviceAccountAssertion(c: GoogleDriveCredentials, tokenUrl: string, nowSec: number): string {
  const header = {
    alg: 'RS256',
    typ: 'JWT',
    ...(c.serviceAccountKey.private_key_id ? { kid: c.serviceAccountKey.private_key_id } : {}),
  };
  const claims = {
    iss: c.serviceAccountKey.client_email,
    scope: DRIVE_READONLY_SCOPE,
    aud: tokenUrl,
    iat: nowSec,
    exp: nowSec + 3600,
    ...(c.subject ? { sub: c.subject } : {}),
  };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = createSign('RSA-SHA256').update(input).sign(c.serviceAccountKey.private_key);
  return `${input}.${b64url(signature)}`;
}

/** Access tokens per service account (and subject), cached until a minute before they expire. */
export class ServiceAccountTokens {
  private readonly cache = new Map<string, { token: string; expiresAt: number }>();

  constructor(
    private readonly tokenUrl: string,
    private readonly fetchFn: SourceFetch,
    private readonly timeoutMs: number,
  ) {}

  async token(c: GoogleDriveCredentials): Promise<string> {
    const key = createHash('sha256')
      .update(JSON.stringify([c.serviceAccountKey.client_email, c.serviceAccountKey.private_key, c.subject]))
      .digest('hex');
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > Date.now() + 60_000) return hit.token;
    const subject = `Google sign-in for service account "${c.serviceAccountKey.client_email}"${c.subject ? ` as "${c.subject}"` : ''}`;
    let res: Response;
    try {
      res = await this.fetchFn(this.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: serviceAccountAssertion(c, this.tokenUrl, Math.floor(Date.now() / 1000)),
        }).toString(),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch {
      throw new SourceError('UNAVAILABLE', `${subject}: the token endpoint did not answer`);
    }
    const body = (await res.json().catch(() => ({}))) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
    };
    if (res.ok && body.access_token) {
      if (this.cache.size >= 256) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, {
        token: body.access_token,
        expiresAt: Date.now() + (body.expires_in ?? 3600) * 1000,
      });
      return body.access_token;
    }
    const code = typeof body.error === 'string' ? body.error.slice(0, 64) : `HTTP ${res.status}`;
    if (res.status === 429 || res.status >= 500)
      throw new SourceError('UNAVAILABLE', `${subject}: the token endpoint failed (${code})`);
    throw new SourceError(
      'ACCESS_DENIED',
      `${subject}: the key or the domain-wide delegation was rejected (${code})`,
    );
  }
}
