import { handleShutdownSignals, ShutdownTracker } from './shutdown';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function harness(stop: (tracker: ShutdownTracker) => Promise<void>, timeoutMs: number) {
  const tracker = new ShutdownTracker();
  const lines: string[] = [];
  const codes: number[] = [];
  const trigger = handleShutdownSignals({
    stop: () => stop(tracker),
    timeoutMs,
    log: (l) => lines.push(l),
    exit: (c) => codes.push(c),
    tracker,
    signals: [],
  });
  return { trigger, lines, codes };
}

describe('handleShutdownSignals', () => {
  it('exits 0 after a graceful stop', async () => {
    const h = harness((t) => t.step('http server', () => sleep(10)), 1000);
    h.trigger('SIGTERM');
    await sleep(50);
    expect(h.codes).toEqual([0]);
  });

  it('exits 1 at the deadline naming every step that did not stop, with what it waits on', async () => {
    const h = harness(async (t) => {
      // a step that stops at once (a timer here raced the 100 ms deadline on a loaded CI machine)
      await t.step('http server', () => Promise.resolve());
      await Promise.all([
        t.step(
          'temporal worker',
          () => new Promise<void>(() => undefined),
          () => 'indexDocumentChunks (document-index/7)',
        ),
        t.step('search index', () => new Promise<void>(() => undefined)),
      ]);
    }, 100);
    const t0 = Date.now();
    h.trigger('SIGINT');
    await sleep(250);
    expect(h.codes).toEqual([1]);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(h.lines[h.lines.length - 1]).toMatch(
      /graceful stop did not finish after \d+ ms; exiting without waiting for: temporal worker \(indexDocumentChunks \(document-index\/7\)\), search index$/,
    );
  });

  it('exits at once on a second signal, after its last resorts (killing child processes)', async () => {
    const killed: string[] = [];
    const h = harness((t) => {
      t.atForcedExit(() => killed.push('temporal dev server'));
      return t.step('database', () => new Promise<void>(() => undefined));
    }, 60_000);
    h.trigger('SIGINT');
    h.trigger('SIGINT');
    expect(killed).toEqual(['temporal dev server']);
    expect(h.codes).toEqual([1]);
    expect(h.lines[1]).toMatch(/second SIGINT .* database$/);
  });

  it('exits 1 after a stop during which a part could not stop cleanly, naming it', async () => {
    const h = harness(async (t) => {
      await t.step('search index', async () =>
        t.failed('search index', 'a write has been running for 9000 ms'),
      );
    }, 1000);
    h.trigger('SIGTERM');
    await sleep(20);
    expect(h.codes).toEqual([1]);
    expect(h.lines[1]).toMatch(
      /^shutdown: stopped after \d+ ms, but not cleanly: search index \(a write has been running for 9000 ms\)$/,
    );
  });

  it('exits 1 when a stop step fails', async () => {
    const h = harness(() => Promise.reject(new Error('search index: a write did not end')), 1000);
    h.trigger('SIGTERM');
    await sleep(20);
    expect(h.codes).toEqual([1]);
    expect(h.lines[1]).toContain('a write did not end');
  });
});

describe('WorkDrains', () => {
  it('drains every registered worker, and is a no-op without one', async () => {
    const { WorkDrains } = await import('./shutdown');
    const drained: string[] = [];
    const empty = new WorkDrains();
    await empty.drainAll();
    const drains = new WorkDrains();
    drains.add({ drain: async () => void drained.push('worker') });
    await drains.drainAll();
    expect(drained).toEqual(['worker']);
  });
});
