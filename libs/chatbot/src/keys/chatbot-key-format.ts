import { randomBytes } from 'node:crypto';
import { CHATBOT_KEY_PREFIX } from '@docqa/accounts';

const KEY_BYTES = 32;
const KEY_SHAPE = /^cb_[A-Za-z0-9_-]{43}$/;
/** Characters kept for display: `cb_` and 5 random characters (about 30 of 256 bits). */
const DISPLAY_CHARS = CHATBOT_KEY_PREFIX.length + 5;

/** Chatbot keys: `cb_` + 43 base64url characters (32 random bytes). */
export function generateChatbotKey(): string {
  return CHATBOT_KEY_PREFIX + randomBytes(KEY_BYTES).toString('base64url');
}

export function looksLikeChatbotKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

export function chatbotKeyDisplayPrefix(key: string): string {
  return key.slice(0, DISPLAY_CHARS);
}

/** What listings show instead of a key. */
export function maskChatbotKey(displayPrefix: string): string {
  return `${displayPrefix}${'•'.repeat(8)}`;
}
