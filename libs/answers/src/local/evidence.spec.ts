import type { Passage } from '../generation.port';
import { EVIDENCE_MAX_PAGES, EVIDENCE_TEXT, evidenceAnswer } from './evidence';

const passage = (n: number, fileName: string, pageNumber: string): Passage => ({
  n,
  fileName,
  pageNumber,
  text: `text ${n}`,
});

describe('evidenceAnswer', () => {
  const passages = [
    passage(1, 'a.pdf', '3'),
    passage(2, 'a.pdf', '3'),
    passage(3, 'b.pdf', '9'),
    passage(4, 'a.pdf', '4'),
    passage(5, 'c.pdf', '1'),
    passage(6, 'd.pdf', '2'),
  ];

  it('cites the best pages once each, best first, at most three', () => {
    const weights = new Map([
      [1, 0.9],
      [2, 0.95],
      [3, 0.8],
      [4, 0.7],
      [5, 0.6],
      [6, 0.6],
    ]);
    const text = evidenceAnswer(passages, (p) => weights.get(p.n)!);
    expect(text).toBe(`${EVIDENCE_TEXT} [2] [3] [4]`);
    expect(text.match(/\[\d+\]/g)).toHaveLength(EVIDENCE_MAX_PAGES);
  });

  it('leaves out pages far below the best', () => {
    const text = evidenceAnswer(passages, (p) => (p.n === 5 ? 1 : 0.2));
    expect(text).toBe(`${EVIDENCE_TEXT} [5]`);
  });

  it('falls back to retrieval order on equal weights', () => {
    expect(evidenceAnswer(passages, () => 0.5)).toBe(`${EVIDENCE_TEXT} [1] [3] [4]`);
  });
});
