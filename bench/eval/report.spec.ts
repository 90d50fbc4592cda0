import { f2, shownAimValue } from './report';

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
