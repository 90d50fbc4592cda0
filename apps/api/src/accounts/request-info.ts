import type { Request } from 'express';

/** Client address for throttling (`X-Forwarded-For` only counts when TRUST_PROXY is set). */
export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** `https://host[:port]` as the caller addressed this service (for absolute URLs in responses). */
export function baseUrlOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
