import { Signer } from '@docqa/common';

/** Global ids name a record across the app: `gid://docqa/{Model}/{id}`. */
export const GID_APP = 'docqa';
const SEPARATOR = '--';

export function globalId(model: string, id: number): string {
  return `gid://${GID_APP}/${model}/${id}`;
}

/**
 * Signed global id: `base64url(gid)--base64url(HMAC-SHA256(key, gid))`, key derived from
 * APP_SECRET (purpose `sgid`). Anyone can read the gid; nobody without APP_SECRET can make one.
 */
export function signGlobalId(signer: Signer, model: string, id: number): string {
  const gid = globalId(model, id);
  return `${Buffer.from(gid, 'utf8').toString('base64url')}${SEPARATOR}${signer.sign(gid)}`;
}

/** Verifies a signed global id; returns its model and id, or null when forged, altered or malformed. */
export function verifySignedGlobalId(signer: Signer, sgid: string): { model: string; id: number } | null {
  if (typeof sgid !== 'string') return null;
  const at = sgid.indexOf(SEPARATOR);
  if (at <= 0) return null;
  const payload = sgid.slice(0, at);
  const signature = sgid.slice(at + SEPARATOR.length);
  if (!/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]+$/.test(signature)) return null;
  const gid = Buffer.from(payload, 'base64url').toString('utf8');
  if (!signer.verify(gid, signature)) return null;
  const m = /^gid:\/\/([^/]+)\/([A-Za-z]+)\/(\d{1,15})$/.exec(gid);
  if (!m || m[1] !== GID_APP) return null;
  return { model: m[2], id: Number(m[3]) };
}
