import { EventLoopStall, watchEventLoop } from './event-loop-watch';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Holds this thread for `ms` without yielding, as a long synchronous call does. */
function hold(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // spin
  }
}

describe('watchEventLoop', () => {
  it('reports a span in which this thread held the loop, as busy', async () => {
    const stalls: EventLoopStall[] = [];
    const watch = watchEventLoop(300, (s) => stalls.push(s), 20);
    try {
      await sleep(60);
      hold(600);
      await sleep(60);
    } finally {
      watch.stop();
    }
    expect(stalls).toHaveLength(1);
    expect(stalls[0].ms).toBeGreaterThanOrEqual(550);
    expect(stalls[0].ms).toBeLessThan(3000);
    expect(stalls[0].busy).toBeGreaterThan(0.8);
  });

  it('says nothing while the loop keeps up, and nothing after stop', async () => {
    const stalls: EventLoopStall[] = [];
    const watch = watchEventLoop(300, (s) => stalls.push(s), 20);
    for (let i = 0; i < 10; i++) {
      hold(50);
      await sleep(10);
    }
    watch.stop();
    hold(500);
    await sleep(60);
    expect(stalls).toEqual([]);
  });
});
