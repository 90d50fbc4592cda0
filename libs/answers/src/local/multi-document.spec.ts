import type { Candidate } from './local.generator';
import { composeSeveral, SentenceJudge } from './multi-document';

/** One document's best sentence: `named` is how much of the question its context holds. */
const candidate = (n: number, text: string, named: number, score = 1): Candidate => ({
  passage: { n, fileName: `report-${n}.pdf`, pageNumber: '2', text },
  rank: n,
  index: 0,
  text,
  stems: [],
  context: new Set(),
  titleStems: new Set(),
  named,
  score,
});

// a sentence says as much of the question as it has words of it; `No` after the field denies it
const judge: SentenceJudge = {
  covers: () => 0,
  says: (c) => (/amateur built/i.test(c.text) ? 2 : 0),
  denies: (c) => /amateur built: no/i.test(c.text),
};

const cited = (answer: string | undefined) =>
  [...(answer ?? '').matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));

describe('composeSeveral: list answers', () => {
  it('never lists a document whose form denies the asked field, even when its context names the question most', () => {
    const ranked = [
      // the two documents whose context holds most of the question both say `No`
      candidate(1, 'Year of Manufacture: Amateur Built: No', 3),
      candidate(2, 'Year of Manufacture: Amateur Built: No', 3),
      candidate(3, 'Year of Manufacture: Amateur Built: Yes', 1),
      candidate(4, 'The pilot of an amateur built airplane noticed a vibration.', 1),
      candidate(5, 'The airplane landed long.', 1, 0.5),
    ];
    expect(cited(composeSeveral('list', ranked, 400, judge))).toEqual([3, 4]);
  });

  it('lists the documents the question names clearly more than the others', () => {
    const ranked = [
      candidate(1, 'Date & Time: 12/08/2007 Amateur Built: Yes', 3),
      candidate(2, 'Date & Time: 12/08/2007', 3),
      candidate(3, 'Date & Time: 11/30/2007 Amateur Built: Yes', 1),
    ];
    expect(cited(composeSeveral('list', ranked, 400, judge))).toEqual([1, 2]);
  });
});

describe('composeSeveral: trend answers', () => {
  const sales: SentenceJudge = { ...judge, says: (c) => (/net sales/i.test(c.text) ? 2 : 0) };

  it('answers from every document the question names, one sentence and citation each', () => {
    const ranked = [
      candidate(1, 'Total net sales were $94.8 billion in the second quarter.', 2),
      candidate(2, 'Total net sales were $117.2 billion in the first quarter.', 2),
      candidate(3, 'Revenue was $52.9 billion, an increase of 7%.', 0, 0.9),
      candidate(4, 'Total net sales were $81.8 billion in the third quarter.', 2, 0.8),
    ];
    expect(cited(composeSeveral('trend', ranked, 400, sales)).sort()).toEqual([1, 2, 4]);
  });

  it('puts the periods in time order when every sentence states a date, else keeps the best first', () => {
    const dated = [
      candidate(1, 'Total net sales were $94.8 billion for the quarter ended April 1, 2023.', 2),
      candidate(2, 'Total net sales were $81.8 billion for the quarter ended July 1, 2023.', 2),
      candidate(
        3,
        'Net sales were $117.2 billion, against $123.9 billion a year before (December 25, 2021), for the quarter ended December 31, 2022.',
        2,
      ),
    ];
    expect(cited(composeSeveral('trend', dated, 600, sales))).toEqual([3, 1, 2]);
    const undated = [dated[0], candidate(2, 'Total net sales were $81.8 billion.', 2), dated[2]];
    expect(cited(composeSeveral('trend', undated, 600, sales))).toEqual([1, 2, 3]);
  });

  it('answers as one document when the question names fewer than two', () => {
    const ranked = [
      candidate(1, 'Total net sales were $94.8 billion in the second quarter.', 2),
      candidate(2, 'Net sales of services grew.', 0),
      candidate(3, 'Net sales fell in Europe.', 0),
    ];
    expect(composeSeveral('trend', ranked, 400, sales)).toBeUndefined();
  });
});
