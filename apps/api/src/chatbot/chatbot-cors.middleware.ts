import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/** Paths that browsers may call from other origins (the widget on a customer's site). */
export const CHATBOT_CORS_PATHS = ['/api/v1/chatbot/ask_question', '/api/v1/support_emails'] as const;

/**
 * CORS for the two chatbot endpoints only; every other endpoint stays same-origin (no CORS
 * headers at all). The request's Origin is echoed: the chatbot key, sent as a bearer header, not a
 * cookie, is what authorises the call, and a key locked to an origin is checked by the guard
 * (403 ORIGIN_NOT_ALLOWED, readable by the page so the widget can show it). Preflights are
 * answered here, before routing, with 204.
 */
@Injectable()
export class ChatbotCorsMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    const origin = req.headers.origin;
    res.vary('Origin');
    if (typeof origin === 'string' && origin) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', 'Retry-After, Content-Type');
    }
    if (req.method === 'OPTIONS') {
      if (typeof origin === 'string' && origin) {
        res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
        res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Accept');
        res.setHeader('Access-Control-Max-Age', '600');
      }
      res.status(204).end();
      return;
    }
    next();
  }
}
