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

  it('never cuts a table row and carries the header of periods into each chunk of the table', () => {
    const rows = Array.from(
      { length: 60 },
      (_, i) => `Line item number ${i} of the statement (${1000 + i},${100 + i}) ${2000 + i} (${300 + i})`,
    );
    const text = ['Consolidated Statement of Cash Flows', '(Millions) 2018 2017 2016', ...rows].join('\n');
    const chunks = chunkPages([{ pageNumber: 4, text }], { size: 500, overlap: 100 });
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks) {
      const lines = c.text.split('\n');
      expect(lines[0] === '(Millions) 2018 2017 2016' || lines[0].startsWith('Consolidated')).toBe(true);
      // Every line is whole: a row as written, or the header.
      for (const line of lines.slice(1)) expect([...rows, '(Millions) 2018 2017 2016']).toContain(line);
    }
    // Every row is in some chunk.
    for (const r of rows) expect(chunks.some((c) => c.text.includes(r))).toBe(true);
  });

  it('leaves prose chunks as they were', () => {
    const text = words(400, 'p');
    const chunks = chunkPages([{ pageNumber: 1, text }], { size: 500, overlap: 100 });
    expect(chunks.every((c) => !c.text.includes('(Millions)'))).toBe(true);
    expect(chunks[0].text).toBe(text.slice(0, chunks[0].text.length));
  });
});
