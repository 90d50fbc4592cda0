import { DomainError, ErrorCode } from '@docqa/common';

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/** Resolves when `p` settles, rejects with the abort reason when `signal` aborts first. */
function untilSettledOrAborted(p: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/**
 * Runs jobs one at a time, in arrival order: the local model has one context sequence, and two
 * generations on it at once would corrupt each other. At most `maxWaiting` jobs wait; one more is
 * refused at once (503) rather than queued for minutes. A job whose signal aborts while it waits
 * leaves the queue without running; the job after it still waits for the one before.
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();
  /** Accepted jobs not finished yet: the running one and those waiting. */
  private pending = 0;

  constructor(
    private readonly maxWaiting: number,
    private readonly what = 'Local model',
  ) {}

  /** Jobs waiting for their turn (not the running one). */
  get waiting(): number {
    return Math.max(0, this.pending - 1);
  }

  async run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw abortReason(signal);
    if (this.pending > this.maxWaiting) {
      throw new DomainError(
        ErrorCode.DEPENDENCY_UNAVAILABLE,
        `${this.what} is busy (${this.waiting} requests waiting); try again shortly`,
      );
    }
    const before = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    this.pending++;
    try {
      await untilSettledOrAborted(before, signal);
    } catch (err) {
      this.pending--;
      void before.then(release);
      throw err;
    }
    try {
      return await job();
    } finally {
      this.pending--;
      release();
    }
  }
}

/** A push-to-pull bridge: callbacks push text, an async iterator yields it (ends or throws once). */
export class TextChannel implements AsyncIterable<string> {
  private readonly items: string[] = [];
  private ended = false;
  private error: unknown;
  private wake?: () => void;

  push(text: string): void {
    if (this.ended || !text) return;
    this.items.push(text);
    this.wake?.();
  }

  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const next = this.items.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.ended) {
        if (this.error !== undefined) throw this.error;
        return;
      }
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }
}
