import { ActivityMonitor } from './activity-monitor';

describe('ActivityMonitor', () => {
  it('tracks the last start, progress or end and the quietest running activity', () => {
    let now = 1000;
    const m = new ActivityMonitor(() => now);
    expect(m.snapshot()).toEqual({ taskQueues: [], running: 0, sinceProgressMs: null });
    m.attach('q');
    const a = {};
    const b = {};
    m.started(a, 'indexDocumentChunks', 'document-index/1');
    now = 2000;
    m.started(b, 'finaliseDocument', 'document-index/2');
    now = 5000;
    m.progressed(b);
    now = 9000;
    expect(m.snapshot()).toEqual({
      taskQueues: ['q'],
      running: 2,
      sinceProgressMs: 4000,
      quietest: { activityType: 'indexDocumentChunks', workflowId: 'document-index/1', quietMs: 8000 },
    });
    expect(m.describeRunning()).toEqual([
      'indexDocumentChunks (document-index/1)',
      'finaliseDocument (document-index/2)',
    ]);
    m.finished(a);
    m.finished(b);
    expect(m.snapshot()).toMatchObject({ running: 0, sinceProgressMs: 0 });
    expect(m.polls('q')).toBe(true);
    m.detach('q');
    expect(m.polls('q')).toBe(false);
  });
});
