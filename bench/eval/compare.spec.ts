import { compareRuns, renderComparison } from './compare';
import type { Metrics } from './metrics';
import type { ItemRecord, RunResult } from './report';

const metrics = (citesPage: number): Metrics =>
  ({ fileHit5: 1, pageHit5: 0.9, citesFile: 1, citesPage, answerHasPhrase: 0.5, multiFound: NaN }) as Metrics;

const item = (id: string, o: Partial<ItemRecord> = {}): ItemRecord =>
  ({
    id,
    cls: 'single',
    fileHit5: true,
    pageHit5: true,
    citesFile: true,
    citesPage: true,
    answerHasPhrase: false,
    refused: false,
    top: ['a.pdf#1', 'a.pdf#2'],
    cited: [{ fileName: 'a.pdf', pageNumber: '1' }],
    ...o,
  }) as ItemRecord;

const run = (engine: string, citesPage: number, items: ItemRecord[]): RunResult =>
  ({
    corpus: 'dev',
    engine,
    provider: 'local',
    metrics: metrics(citesPage),
    heldOut: metrics(citesPage),
    items,
  }) as RunResult;

describe('compareRuns', () => {
  it('pairs runs by corpus, engine and provider and names the items whose top 5, citations or outcome changed', () => {
    const before = [
      run('embedded', 0.5, [item('q1'), item('q2'), item('q3'), item('q4')]),
      run('elasticsearch', 0.5, [item('q1')]),
    ];
    const after = [
      run('embedded', 0.75, [
        item('q1'),
        item('q2', { top: ['a.pdf#2', 'a.pdf#1'] }),
        item('q3', { cited: [{ fileName: 'a.pdf', pageNumber: '2' }], citesPage: false }),
        item('q5'),
      ]),
    ];
    const [c, ...rest] = compareRuns(before, after);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({
      run: 'dev.embedded.local',
      topChanged: ['q2'],
      citationsChanged: ['q3'],
      outcomeChanged: ['q3'],
      unmatched: ['q5', 'q4'],
    });
    expect(c.figures.find((f) => f.label === 'cites page')).toEqual({
      label: 'cites page',
      all: [0.5, 0.75],
      heldOut: [0.5, 0.75],
    });
    const text = renderComparison([c]);
    expect(text).toContain('| cites page | 0.500 -> 0.750 * | 0.500 -> 0.750 |');
    expect(text).toContain('| file@5 | 1.000 -> 1.000 |');
    expect(text).not.toContain('list/compare'); // not a figure of this corpus
    expect(text).toContain('top 5 changed: 1 (q2)');
  });

  it('finds nothing changed between two identical runs', () => {
    const r = run('embedded', 0.8, [item('q1'), item('q2')]);
    const [c] = compareRuns([r], [structuredClone(r)]);
    expect([c.topChanged, c.citationsChanged, c.outcomeChanged, c.unmatched]).toEqual([[], [], [], []]);
  });
});
