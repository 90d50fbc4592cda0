/**
 * Bounded waits. Every wait on an engine or a lock goes through these, so no caller can hang on a
 * call that never settles: the caller gets an error at the deadline (or when its signal aborts)
 * while the call itself, which cannot always be cancelled (a native engine call), is left to
 * settle on its own.
 */

/** A wait ran past its deadline. `what` names it for logs and messages (never data). */
export class DeadlineExceededError extends Error {
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = 'DeadlineExceededError';
  }
}

/** Rejects with the signal's reason (an activity's CancelledFailure, for example) once it aborts. */
export function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * `p`, or DeadlineExceededError after `ms`, or the signal's reason if it aborts first. The
 * promise `p` keeps running; callers that hold a resource for it release it when `p` settles.
 */
export function withDeadline<T>(p: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceededError(what, ms)), ms);
  });
  return abortable(Promise.race([p, deadline]), signal).finally(() => clearTimeout(timer));
}

/**
 * A first-in, first-out lock whose waiters give up at a deadline or when their signal aborts.
 * `acquire` resolves to a release function; a waiter that gave up never gets the lock.
 */
export class DeadlineLock {
  private held = false;
  private readonly waiters: Array<{ grant: () => void }> = [];

  get isHeld(): boolean {
    return this.held;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  acquire(ms: number, what: string, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (!this.held) {
      this.held = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise<() => void>((resolve, reject) => {
      const waiter = {
        grant: () => {
          cleanup();
          resolve(this.releaser());
        },
      };
      const giveUp = (err: unknown) => {
        cleanup();
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(err);
      };
      const timer = setTimeout(() => giveUp(new DeadlineExceededError(what, ms)), ms);
      const onAbort = () => giveUp(signal?.reason);
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next.grant();
      else this.held = false;
    };
  }
}
