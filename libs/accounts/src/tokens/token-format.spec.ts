import {
  bearerFrom,
  generateApiToken,
  isChatbotKey,
  looksLikeApiToken,
  maskToken,
  tokenDisplayPrefix,
} from './token-format';

describe('API token format', () => {
  it('generates dq_ tokens with 32 random bytes', () => {
    const t = generateApiToken();
    expect(t).toMatch(/^dq_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(t.slice(3), 'base64url')).toHaveLength(32);
    expect(looksLikeApiToken(t)).toBe(true);
    expect(generateApiToken()).not.toBe(t);
  });

  it('masks a token down to its display prefix', () => {
    const t = generateApiToken();
    const shown = maskToken(tokenDisplayPrefix(t));
    expect(shown.startsWith(t.slice(0, 8))).toBe(true);
    expect(shown).not.toContain(t.slice(8, 16));
  });

  it('recognises chatbot keys and parses bearer headers', () => {
    expect(isChatbotKey('cb_abc')).toBe(true);
    expect(isChatbotKey('dq_abc')).toBe(false);
    expect(bearerFrom('Bearer dq_x')).toBe('dq_x');
    expect(bearerFrom('bearer   dq_x ')).toBe('dq_x');
    expect(bearerFrom('Basic abc')).toBeNull();
    expect(bearerFrom('Bearer')).toBeNull();
    expect(bearerFrom('Bearer a b')).toBeNull();
    expect(bearerFrom(undefined)).toBeNull();
  });
});
