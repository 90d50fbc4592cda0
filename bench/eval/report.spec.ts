import * as path from 'node:path';
import { f2, readResults, renderReport, shownAimValue } from './report';

describe('shownAimValue', () => {
  it('gives a share that rounds to its aim without reaching it a third decimal', () => {
    expect(shownAimValue(61 / 72, 0.85, false, f2)).toBe('0.847');
    expect(shownAimValue(62 / 72, 0.85, true, f2)).toBe('0.86');
    expect(shownAimValue(0.79, 0.85, false, f2)).toBe('0.79');
    expect(shownAimValue(0.9, 0.9, true, f2)).toBe('0.90');
    const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    expect(shownAimValue(15_020, 15_000, false, sec)).toBe('15.0 s');
  });
});

describe('renderReport', () => {
  it('lists the misses of dev and similar, and of the blind corpus only its figures (no item is shown)', () => {
    const results = readResults(path.join(__dirname, 'results'));
    expect(results.some((r) => r.corpus === 'blind')).toBe(true);
    const page = renderReport(results);
    expect(page).toMatch(/\| dev-\d{3} \|/);
    expect(page).toContain('## blind corpus');
    expect(page).not.toMatch(/ho-\d{3}/);
    const blindItems = results.filter((r) => r.corpus === 'blind').flatMap((r) => r.items);
    for (const i of blindItems) expect(page).not.toContain(i.query.slice(0, 40));
  });
});
