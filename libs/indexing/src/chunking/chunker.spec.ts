import { chunkPages, cleanPageText } from './chunker';

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');

describe('chunkPages', () => {
  it('keeps each chunk on one page and numbers chunks across pages', () => {
    const chunks = chunkPages([
      { pageNumber: 1, text: words(400, 'a') },
      { pageNumber: 2, text: '' },
      { pageNumber: 3, text: 'short page' },
    ]);
    expect(chunks.map((c) => c.chunkIndex)).toEqual(chunks.map((_, i) => i));
    expect(new Set(chunks.map((c) => c.pageNumber))).toEqual(new Set([1, 3]));
    expect(chunks.filter((c) => c.pageNumber === 1).every((c) => c.text.startsWith('a'))).toBe(true);
    expect(chunks[chunks.length - 1]).toMatchObject({ pageNumber: 3, text: 'short page' });
  });

  it('bounds chunk length and covers every passage up to the overlap length', () => {
    const text = words(2000, 'w');
    const chunks = chunkPages([{ pageNumber: 7, text }], { size: 500, overlap: 100 });
    expect(chunks.length).toBeGreaterThan(20);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(500);
    // Every 100-character window of the page is inside some chunk.
    for (let i = 0; i + 100 <= text.length; i += 37) {
      const passage = text.slice(i, i + 100).trim();
      expect(chunks.some((c) => c.text.includes(passage))).toBe(true);
    }
  });

  it('splits text without spaces and always makes progress', () => {
    const chunks = chunkPages([{ pageNumber: 1, text: 'x'.repeat(5000) }], { size: 1000, overlap: 200 });
    expect(chunks.length).toBe(6);
    expect(chunks.every((c) => c.text.length <= 1000)).toBe(true);
  });

  it('cleans whitespace but keeps line breaks', () => {
    expect(cleanPageText('a \t b\r\nexam-\n  ple\n\n\n\nend')).toBe('a b\nexam-\nple\n\nend');
  });
});
