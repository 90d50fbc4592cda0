import type { QaItem } from '../rag/qa';
import { aggregate } from './metrics';
import { citedPages, isHeldOut, itemClass, scoreItem, stratifiedSample } from './scoring';

const ref = (fileName: string, page: number) => ({ fileName, pageNumber: String(page) });
const never = () => false;

const fact: QaItem = {
  id: 'sim-002',
  question: 'How many hours?',
  answer: '119 hours',
  kind: 'fact',
  fileName: 'a.pdf',
  page: 2,
  alsoOnPages: [1],
};
const compare: QaItem = {
  id: 'sim-031',
  question: 'Who had more?',
  answer: '2640 hours',
  kind: 'compare',
  fileName: 'a.pdf',
  page: 2,
  alsoFiles: [{ fileName: 'b.pdf', page: 3 }],
};
const unanswerable: QaItem = {
  id: 'sim-044',
  question: 'Not there?',
  answer: '',
  kind: 'unanswerable',
  fileName: null,
  page: null,
};

describe('eval scoring', () => {
  it('classifies items and splits off the odd-numbered half', () => {
    expect([fact, compare, unanswerable].map(itemClass)).toEqual(['single', 'multi', 'unanswerable']);
    expect([isHeldOut('sim-031'), isHeldOut('dev-002'), isHeldOut('x')]).toEqual([true, false, false]);
  });

  it('counts a single-document answer by file and by page (alsoOnPages included)', () => {
    const wrongPage = scoreItem(fact, 'x', [ref('a.pdf', 3)], [ref('b.pdf', 2), ref('a.pdf', 3)], never);
    expect(wrongPage).toMatchObject({ fileHit5: true, pageHit5: false, citesFile: true, citesPage: false });
    const alsoOn = scoreItem(fact, '119 hours', [ref('a.pdf', 1)], [ref('a.pdf', 1)], never);
    expect(alsoOn).toMatchObject({ pageHit5: true, citesPage: true, answerHasPhrase: true });
    const sixth = [1, 2, 3, 4, 5].map((p) => ref('b.pdf', p)).concat(ref('a.pdf', 2));
    expect(scoreItem(fact, '', [], sixth, never)).toMatchObject({ fileHit5: false, refused: true });
  });

  it('finds a compare item only when every named document is cited', () => {
    const one = scoreItem(compare, '', [ref('a.pdf', 2)], [ref('a.pdf', 2), ref('b.pdf', 3)], never);
    expect(one).toMatchObject({ fileHit5: true, citesFile: false, citesOnlyNamed: false });
    const both = scoreItem(compare, '', [ref('a.pdf', 2), ref('b.pdf', 1), ref('c.pdf', 1)], [], never);
    expect(both).toMatchObject({ citesFile: true, citesPage: false, citesOnlyNamed: false, fileHit5: false });
  });

  it('counts unanswerable items answered without citations, and aggregates', () => {
    const cited = scoreItem(unanswerable, 'x', [ref('a.pdf', 1)], [], never);
    const silent = scoreItem(unanswerable, 'x', [], [], never);
    const m = aggregate([
      cited,
      silent,
      scoreItem(fact, '', [ref('a.pdf', 2), ref('c.pdf', 1)], [], (r) => r.fileName === 'a.pdf'),
      scoreItem(compare, '', [ref('a.pdf', 2), ref('b.pdf', 3)], [], never),
    ]);
    expect(m).toMatchObject({
      single: 1,
      multi: 1,
      unanswerable: 2,
      unanswerableNoCitation: 0.5,
      citesPage: 1,
      multiFound: 1,
      multiOnlyNamed: 1,
      citationPrecisionFile: 0.75,
      citationPrecisionPhrase: 0.5,
    });
  });
});

describe('stratifiedSample', () => {
  const item = (id: string, kind: string): QaItem => ({
    id,
    question: id,
    answer: '',
    kind,
    fileName: 'a.pdf',
    page: 1,
  });
  const items = [
    item('f1', 'fact'),
    item('f2', 'fact'),
    item('f3', 'fact'),
    item('c1', 'compare'),
    item('u1', 'unanswerable'),
    item('u2', 'unanswerable'),
  ];

  it('takes items round-robin over kinds, each kind in file order', () => {
    expect(stratifiedSample(items, 4).map((i) => i.id)).toEqual(['f1', 'c1', 'u1', 'f2']);
  });

  it('keeps every item when n is the whole set, and never more', () => {
    expect(stratifiedSample(items, 100).map((i) => i.id)).toEqual(['f1', 'c1', 'u1', 'f2', 'u2', 'f3']);
  });
});

describe('citedPages', () => {
  const passages = [
    { n: 1, ...ref('a.pdf', 2) },
    { n: 2, ...ref('a.pdf', 2) },
    { n: 5, ...ref('b.pdf', 7) },
  ];

  it('maps markers to their passages by n, once per file and page, in order of first citation', () => {
    expect(citedPages('First. [5] Second. [1] Third. [2] Again. [5]', passages)).toEqual([
      ref('b.pdf', 7),
      ref('a.pdf', 2),
    ]);
  });

  it('ignores markers of passages not given, and answers without markers', () => {
    expect(citedPages('Odd. [3] [9]', passages)).toEqual([]);
    expect(citedPages('I could not find an answer.', passages)).toEqual([]);
  });
});
