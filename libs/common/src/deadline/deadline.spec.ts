import { abortable, DeadlineExceededError, DeadlineLock, withDeadline } from './deadline';

const never = () => new Promise<never>(() => undefined);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('withDeadline', () => {
  it('passes a result that comes in time through', async () => {
    await expect(withDeadline(Promise.resolve(7), 1000, 'x')).resolves.toBe(7);
  });
  it('fails a call that never settles at its deadline, naming it', async () => {
    const t0 = Date.now();
    await expect(withDeadline(never(), 50, 'search write')).rejects.toThrow(
      new DeadlineExceededError('search write', 50),
    );
    expect(Date.now() - t0).toBeLessThan(1000);
  });
  it('fails with the reason of an aborted signal, before the deadline', async () => {
    const ac = new AbortController();
    const p = withDeadline(never(), 10_000, 'x', ac.signal);
    ac.abort(new Error('cancelled by the workflow'));
    await expect(p).rejects.toThrow('cancelled by the workflow');
  });
});

describe('abortable', () => {
  it('rejects at once when the signal already aborted', async () => {
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    await expect(abortable(never(), ac.signal)).rejects.toThrow('gone');
  });
});

describe('DeadlineLock', () => {
  it('serialises holders in arrival order', async () => {
    const lock = new DeadlineLock();
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3].map(async (n) => {
        const release = await lock.acquire(1000, 'lock');
        order.push(n);
        await sleep(5);
        release();
      }),
    );
    expect(order).toEqual([1, 2, 3]);
    expect(lock.isHeld).toBe(false);
  });

  it('lets a waiter give up at its deadline while the holder never releases, and never grants it later', async () => {
    const lock = new DeadlineLock();
    const release = await lock.acquire(1000, 'lock');
    await expect(lock.acquire(30, 'search write lock')).rejects.toBeInstanceOf(DeadlineExceededError);
    expect(lock.waiting).toBe(0);
    release();
    expect(lock.isHeld).toBe(false);
    const again = await lock.acquire(30, 'lock');
    again();
  });

  it('drops a waiter whose signal aborts', async () => {
    const lock = new DeadlineLock();
    const release = await lock.acquire(1000, 'lock');
    const ac = new AbortController();
    const waiting = lock.acquire(10_000, 'lock', ac.signal);
    ac.abort(new Error('activity cancelled'));
    await expect(waiting).rejects.toThrow('activity cancelled');
    expect(lock.waiting).toBe(0);
    release();
  });

  it('ignores a second release', async () => {
    const lock = new DeadlineLock();
    const r1 = await lock.acquire(1000, 'lock');
    const p2 = lock.acquire(1000, 'lock');
    r1();
    r1();
    const r2 = await p2;
    const p3 = lock.acquire(50, 'lock');
    await expect(p3).rejects.toBeInstanceOf(DeadlineExceededError);
    r2();
  });
});
