import { randomBytes } from 'node:crypto';

/** API tokens: `dq_` + 43 base64url characters (32 random bytes). */
export const API_TOKEN_PREFIX = 'dq_';
/** Chatbot keys (chatbot endpoints only) start with this; ApiTokenGuard refuses them. */
export const CHATBOT_KEY_PREFIX = 'cb_';
const TOKEN_BYTES = 32;
/** Characters kept for display: `dq_` and 5 random characters (about 30 of 256 bits). */
const DISPLAY_CHARS = API_TOKEN_PREFIX.length + 5;
const TOKEN_SHAPE = /^dq_[A-Za-z0-9_-]{43}$/;

export function generateApiToken(): string {
  return API_TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString('base64url');
}

export function looksLikeApiToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

export function isChatbotKey(value: string): boolean {
  return value.startsWith(CHATBOT_KEY_PREFIX);
}

/** The stored display prefix of a token. */
export function tokenDisplayPrefix(token: string): string {
  return token.slice(0, DISPLAY_CHARS);
}

/** What listings show instead of a token. */
export function maskToken(displayPrefix: string): string {
  return `${displayPrefix}${'•'.repeat(8)}`;
}

/** Parses `Authorization: Bearer <token>`; null when absent or malformed. */
export function bearerFrom(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return m ? m[1] : null;
}
