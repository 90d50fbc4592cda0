import type { StoredChunk } from '@docqa/search';
import { CitationTracker } from './citations';
import { UsageMeter } from './usage';

const chunk = (documentId: string, pageNumber: string, fileName = `${documentId}.pdf`): StoredChunk => ({
  id: `${documentId}:${pageNumber}`,
  accountId: 1,
  docSetName: 'd',
  documentId,
  fileName,
  pageNumber,
  sourceType: 'S3',
  sourceId: `key/${fileName}`,
  chunkIndex: 0,
  text: '',
});

describe('CitationTracker', () => {
  it('numbers citations in order of first use, deduplicated by document and page', () => {
    const t = new CitationTracker([chunk('a', '1'), chunk('b', '2'), chunk('a', '1'), chunk('a', '3')]);
    let out = t.push('First [2]. Second [3] and [1]. Third [4].');
    out += t.flush();
    expect(out).toBe('First [1]. Second [2] and [2]. Third [3].');
    expect(t.citations().map((c) => [c.index, c.fileName, c.pageNumber])).toEqual([
      [1, 'b.pdf', '2'],
      [2, 'a.pdf', '1'],
      [3, 'a.pdf', '3'],
    ]);
    expect(t.citations()[0]).toEqual({
      index: 1,
      fileName: 'b.pdf',
      pageNumber: '2',
      sourceType: 'S3',
      sourceMetadata: { sourceId: 'key/b.pdf', documentId: 'b', docSetName: 'd' },
    });
  });

  it('handles markers split across deltas and drops markers naming no passage', () => {
    const t = new CitationTracker([chunk('a', '1')]);
    const parts = ['Answer [', '1', '] and [', '9] end [1', '0]'].map((p) => t.push(p));
    parts.push(t.flush());
    expect(parts.join('')).toBe('Answer [1] and  end ');
    expect(t.text).toBe(parts.join(''));
    expect(t.citations()).toHaveLength(1);
    for (const m of t.text.match(/\[(\d+)\]/g) ?? []) {
      expect(t.citations().some((c) => `[${c.index}]` === m)).toBe(true);
    }
  });

  it('writes a marker repeated right after itself once', () => {
    const t = new CitationTracker([chunk('a', '1'), chunk('a', '1')]);
    expect(t.push('X [1][2]') + t.push(' [1]') + t.flush()).toBe('X [1]');
  });
});

describe('UsageMeter', () => {
  it('sums calls per model in order of first call', () => {
    const u = new UsageMeter();
    u.add({ model: 'rw', inputTokens: 10, outputTokens: 2 });
    u.add({ model: 'gen', inputTokens: 100, outputTokens: 20 });
    u.add({ model: 'rw', inputTokens: 1, outputTokens: 1 });
    u.add(undefined);
    expect(u.toUsage()).toEqual({
      inputTokens: 111,
      outputTokens: 23,
      calls: 3,
      perModel: [
        { model: 'rw', inputTokens: 11, outputTokens: 3, calls: 2 },
        { model: 'gen', inputTokens: 100, outputTokens: 20, calls: 1 },
      ],
    });
  });
});
