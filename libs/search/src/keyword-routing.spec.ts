import { evaluateKeywordRouting, KEYWORD_ROUTING_MAX_WORDS } from './keyword-routing';

const none = { hasHistory: false, hasPromptContext: false };

describe('evaluateKeywordRouting', () => {
  it('skips the rewriter for 1 to 5 plain words', () => {
    expect(evaluateKeywordRouting('margins', none).skipsRewriter).toBe(true);
    expect(evaluateKeywordRouting('latex set all margins 2cm', none)).toEqual({
      query: 'latex set all margins 2cm',
      skipsRewriter: true,
      maxWords: 5,
      rule: expect.stringContaining('1 to 5 words'),
    });
  });

  it('rewrites 6 words', () => {
    expect(evaluateKeywordRouting('latex set all page margins 2cm', none).skipsRewriter).toBe(false);
    expect(KEYWORD_ROUTING_MAX_WORDS).toBe(5);
  });

  it.each([
    'what is geometry?',
    'margins, geometry',
    'geometry.sty',
    "what's new",
    'end-of-line',
    'path/to',
    'say "hi"',
    'a (b)',
    'wait!',
    'a;b',
    'x: y',
    '¿qué',
    '日本語。',
    'foo…',
  ])('rewrites a query with punctuation: %s', (q) => {
    expect(evaluateKeywordRouting(q, none).skipsRewriter).toBe(false);
  });

  it('keeps symbols that are not punctuation (c++, 2+2, $100)', () => {
    expect(evaluateKeywordRouting('c++ templates', none).skipsRewriter).toBe(true);
    expect(evaluateKeywordRouting('$100 fee', none).skipsRewriter).toBe(true);
  });

  it('collapses extra whitespace, which does not make words', () => {
    const r = evaluateKeywordRouting('  latex \t set\n all   margins  2cm  ', none);
    expect(r).toMatchObject({ query: 'latex set all margins 2cm', skipsRewriter: true });
    expect(evaluateKeywordRouting('a\u00a0b\u3000c d e f', none)).toMatchObject({
      query: 'a b c d e f',
      skipsRewriter: false,
    });
  });

  it('handles unicode words', () => {
    expect(evaluateKeywordRouting('Größe der Ränder', none)).toMatchObject({ skipsRewriter: true });
    expect(evaluateKeywordRouting('日本語 検索', none)).toMatchObject({ skipsRewriter: true });
    expect(evaluateKeywordRouting('naïve café crème brûlée', none).skipsRewriter).toBe(true);
  });

  it('never skips with conversation history or promptContext', () => {
    expect(
      evaluateKeywordRouting('margins', { hasHistory: true, hasPromptContext: false }).skipsRewriter,
    ).toBe(false);
    expect(
      evaluateKeywordRouting('margins', { hasHistory: false, hasPromptContext: true }).skipsRewriter,
    ).toBe(false);
  });

  it('does not skip an empty or blank query', () => {
    expect(evaluateKeywordRouting('', none)).toMatchObject({ query: '', skipsRewriter: false });
    expect(evaluateKeywordRouting('   ', none).skipsRewriter).toBe(false);
  });
});
