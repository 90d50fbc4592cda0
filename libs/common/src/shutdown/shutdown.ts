/**
 * Bounded shutdown. Each part that stops (HTTP listeners, the Temporal worker, the search index,
 * the database, embedded servers) runs its stop as a tracked step; the signal handler gives the
 * whole stop a budget (SHUTDOWN_TIMEOUT_MS) and then exits anyway, naming the steps that did not
 * end. Ctrl-C or SIGTERM therefore always ends the process, whatever is hung (issue #13).
 */
export class ShutdownTracker {
  private readonly running = new Map<string, () => string | undefined>();
  private readonly lastResorts = new Set<() => void>();
  private readonly failures: string[] = [];

  /** A part that could not stop cleanly (the stop goes on; the exit code and log say so). */
  failed(name: string, reason: string): void {
    this.failures.push(`${name} (${reason})`);
  }

  /** Parts that failed to stop cleanly so far. */
  failedSteps(): string[] {
    return [...this.failures];
  }

  /**
   * Registers a synchronous last resort run before a forced exit (kill a child process, so a
   * dev server never outlives us holding its port). Returns the unregister function.
   */
  atForcedExit(fn: () => void): () => void {
    this.lastResorts.add(fn);
    return () => this.lastResorts.delete(fn);
  }

  /** Runs every last resort (never throws). */
  runLastResorts(): void {
    for (const fn of this.lastResorts) {
      try {
        fn();
      } catch {
        // exiting anyway
      }
    }
  }

  /** Runs `fn` as the step `name`; `detail` says what it waits on if it does not end in time. */
  async step<T>(name: string, fn: () => Promise<T>, detail?: () => string | undefined): Promise<T> {
    this.running.set(name, detail ?? (() => undefined));
    try {
      return await fn();
    } finally {
      this.running.delete(name);
    }
  }

  /** Steps still running, each with what it waits on. */
  stillRunning(): string[] {
    return [...this.running].map(([name, detail]) => {
      const d = detail();
      return d ? `${name} (${d})` : name;
    });
  }
}

export const shutdownTracker = new ShutdownTracker();

/**
 * What takes work (the Temporal worker) stops before the modules it uses close: Nest destroys
 * modules deepest first, so the PDF threads, the embedding model and the search index would
 * otherwise go while activities still run on them. A worker registers here; the api and worker
 * bootstraps call `drainAll()` between closing their listeners and closing the application.
 */
export interface WorkDrainer {
  drain(): Promise<void>;
}

/** Per application (a provider of ShutdownModule): the drainers of that application. */
export class WorkDrains {
  private readonly drainers = new Set<WorkDrainer>();

  add(d: WorkDrainer): void {
    this.drainers.add(d);
  }

  async drainAll(): Promise<void> {
    await Promise.all([...this.drainers].map((d) => d.drain()));
  }
}

export interface ShutdownSignalOptions {
  /** The graceful stop of everything. */
  stop: () => Promise<void>;
  /** Budget of the graceful stop before the process exits anyway (must stay under 30 s). */
  timeoutMs: number;
  /** One line for the operator (stderr). */
  log?: (line: string) => void;
  exit?: (code: number) => void;
  tracker?: ShutdownTracker;
  signals?: NodeJS.Signals[];
}

/**
 * On the first SIGINT/SIGTERM: graceful stop, exit 0 (1 if it failed); past `timeoutMs`, or on a
 * second signal, exit 1 at once with a line naming what did not stop. Returns the stop trigger
 * (tests call it directly).
 */
export function handleShutdownSignals(o: ShutdownSignalOptions): (signal: string) => void {
  const log = o.log ?? ((line: string) => console.error(line));
  const exit = o.exit ?? ((code: number) => process.exit(code));
  const tracker = o.tracker ?? shutdownTracker;
  let started = 0;
  let done = false;
  const force = (why: string) => {
    if (done) return;
    done = true;
    const pending = tracker.stillRunning();
    log(
      `shutdown: ${why} after ${Date.now() - started} ms; exiting without waiting for: ` +
        (pending.length ? pending.join(', ') : 'nothing tracked (a stop step did not report)'),
    );
    tracker.runLastResorts();
    exit(1);
  };
  const trigger = (signal: string) => {
    if (started) {
      force(`second ${signal}`);
      return;
    }
    started = Date.now();
    log(`${signal}: stopping (at most ${o.timeoutMs} ms; ${signal} again to stop at once)...`);
    const timer = setTimeout(() => force('graceful stop did not finish'), o.timeoutMs);
    timer.unref?.();
    o.stop().then(
      () => {
        clearTimeout(timer);
        if (done) return;
        done = true;
        const failed = tracker.failedSteps();
        if (failed.length) {
          log(`shutdown: stopped after ${Date.now() - started} ms, but not cleanly: ${failed.join(', ')}`);
          tracker.runLastResorts();
        }
        exit(failed.length ? 1 : 0);
      },
      (err: Error) => {
        clearTimeout(timer);
        if (done) return;
        done = true;
        log(`shutdown: a stop step failed (${err.message})`);
        exit(1);
      },
    );
  };
  for (const s of o.signals ?? (['SIGINT', 'SIGTERM'] as NodeJS.Signals[])) process.on(s, () => trigger(s));
  return trigger;
}
