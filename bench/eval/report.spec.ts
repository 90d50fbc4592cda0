import * as path from 'node:path';
import type { Corpus } from '../rag/harness';
import { f2, readResults, renderReport, RunResult, shownAimValue } from './report';
import { publishable } from './run';

describe('shownAimValue', () => {
  it('gives a share that rounds to its aim without reaching it a third decimal', () => {
    expect(shownAimValue(61 / 72, 0.85, false, f2)).toBe('0.847');
    expect(shownAimValue(62 / 72, 0.85, true, f2)).toBe('0.86');
    expect(shownAimValue(0.79, 0.85, false, f2)).toBe('0.79');
    expect(shownAimValue(0.9, 0.9, true, f2)).toBe('0.90');
  });
});

describe('renderReport', () => {
  const results = readResults(path.join(__dirname, 'results'));

  it('renders a table per corpus and the aims, showing no item of any corpus', () => {
    expect(results.some((r) => r.corpus === 'blind')).toBe(true);
    const page = renderReport(results);
    expect(page).toContain('## Aims');
    expect(page).toMatch(/## dev corpus/);
    expect(page).toMatch(/## blind corpus/);
    for (const i of results.flatMap((r) => r.items))
      if (i.query) expect(page).not.toContain(i.query.slice(0, 40));
    // A page a reader can finish (issue 60): a few tables, not every item of every run.
    expect(page.length).toBeLessThan(30_000);
  });

  it('checks the aims of issue 58 on FinanceBench runs', () => {
    const dev = results.find((r) => r.corpus === 'dev')!;
    const fb: RunResult = {
      ...dev,
      corpus: 'financebench',
      metrics: { ...dev.metrics, citesFile: 0.8, citesPage: 0.3, answerableRefused: 0.05 },
    };
    const page = renderReport([fb]);
    // its answers are no phrases of the pages: no row that would read 0.00 whatever is answered
    expect(page).not.toContain('answer text contains the answer phrase');
    expect(renderReport([dev])).toContain('| answer text contains the answer phrase |');
    expect(page).toMatch(
      /\| 58 \| financebench \| .* \| cites the right filing \| >= 0\.75 \| 0\.80 \| met \|/,
    );
    expect(page).toMatch(
      /\| 58 \| financebench \| .* \| cites the right page \| >= 0\.45 \| 0\.30 \| \*\*not met\*\* \|/,
    );
  });

  it("checks issue 58's aims on dev, similar and blind on the embedded extractive runs only", () => {
    const blind = results.find(
      (r) => r.corpus === 'blind' && r.engine === 'embedded' && r.provider === 'local',
    )!;
    const run = (engine: string, declined: number): RunResult => ({
      ...blind,
      engine,
      metrics: { ...blind.metrics, citesPage: 0.8, unanswerableNoCitation: declined },
    });
    expect(renderReport([run('embedded', 4 / 7)])).toMatch(
      /\| 58 \| blind \| embedded \| local \| unanswerable declined, as filed \| >= 0\.57 \| 0\.57 \| met \|/,
    );
    expect(renderReport([run('embedded', 3 / 7)])).toMatch(
      /\| 58 \| blind \| embedded \| local \| unanswerable declined, as filed \| >= 0\.57 \| 0\.43 \| \*\*not met\*\* \|/,
    );
    expect(renderReport([run('embedded', 1)])).toMatch(
      /\| 58 \| blind \| embedded \| local \| right page, as filed \| >= 0\.750 \| 0\.800 \| met \|/,
    );
    expect(renderReport([run('elasticsearch', 3 / 7)])).not.toMatch(
      /\| (right page|unanswerable declined), as filed \|/,
    );
  });
});

describe('publishable', () => {
  it('keeps no question, query or answer of a corpus licensed for measuring only', () => {
    const dev = readResults(path.join(__dirname, 'results')).find((r) => r.corpus === 'dev')!;
    const corpus = { name: 'financebench', measureOnly: true } as Corpus;
    const out = publishable(corpus, dev);
    expect(out.items.every((i) => !i.question && !i.query && !i.answer)).toBe(true);
    expect(out.items.map((i) => i.citesPage)).toEqual(dev.items.map((i) => i.citesPage));
    expect(publishable({ ...corpus, measureOnly: false }, dev)).toBe(dev);
  });
});
