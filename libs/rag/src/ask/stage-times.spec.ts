import { StageTimes } from './stage-times';

describe('StageTimes', () => {
  afterEach(() => jest.useRealTimers());

  it('gives the total and each step since the one before, in order', () => {
    jest.useFakeTimers({ now: 1_000 });
    const t = new StageTimes();
    jest.setSystemTime(1_040);
    t.lap('authorize');
    jest.setSystemTime(1_040);
    t.lap('embed');
    jest.setSystemTime(2_240);
    t.lap('retrieve');
    jest.setSystemTime(2_300);
    expect(t.summary()).toBe('1300 ms (authorize 40, embed 0, retrieve 1200)');
  });

  it('says so when no step was timed', () => {
    jest.useFakeTimers({ now: 5_000 });
    const t = new StageTimes();
    jest.setSystemTime(5_007);
    expect(t.summary()).toBe('7 ms ()');
  });
});
