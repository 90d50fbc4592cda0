import type { Request } from 'express';

/** Client address for throttling (`X-Forwarded-For` only counts when TRUST_PROXY is set). */
export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
