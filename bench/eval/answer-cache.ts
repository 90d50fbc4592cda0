/* Per-question cache of model answers for `npm run eval`, so a long generative run (minutes per
 * question on 2 CPU cores) can be stopped and resumed, and a rerun with unchanged retrieval, model
 * and prompt code costs nothing. The app's own generator and rewriter are wrapped in-process: the
 * key is the exact input the model would get (question, query, history, passages) plus a scope
 * (provider, model file, prompt budget and a hash of the compiled generation code), so any change
 * that could change an answer misses the cache. Timings of the original run are kept with it. */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type {
  GenerateInput,
  GenerationEvent,
  Generator,
  Rewriter,
  RewriteInput,
  RewriteResult,
} from '@docqa/answers';

export interface CachedTiming {
  ttftMs?: number;
  totalMs: number;
}

interface Entry {
  key: string;
  kind: 'answer' | 'rewrite';
  events?: GenerationEvent[];
  rewrite?: RewriteResult;
  timing?: CachedTiming;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** A hash of the compiled files under `dirs` (the code that builds prompts and reads answers). */
export function codeHash(dirs: string[]): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const f of fs.readdirSync(d).sort()) {
      const p = path.join(d, f);
      if (fs.statSync(p).isDirectory()) walk(p);
      else if (f.endsWith('.js')) h.update(f).update(fs.readFileSync(p));
    }
  };
  dirs.forEach(walk);
  return h.digest('hex').slice(0, 16);
}

export class AnswerCache {
  private readonly entries = new Map<string, Entry>();
  /** Set by the wrapped generator: whether the current item's answer came from the cache, and its key. */
  current: { key?: string; hit: boolean; rewriteHit?: boolean } = { hit: false };

  constructor(
    private readonly file: string,
    private readonly scope: Record<string, unknown>,
  ) {
    if (fs.existsSync(file)) {
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        try {
          const e = JSON.parse(line) as Entry;
          this.entries.set(e.key, e);
        } catch {
          // a line cut by an interrupted run
        }
      }
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
  }

  get size(): number {
    return this.entries.size;
  }

  private key(kind: string, input: unknown): string {
    return sha(JSON.stringify({ kind, scope: this.scope, input }));
  }

  private put(e: Entry): void {
    this.entries.set(e.key, e);
    fs.appendFileSync(this.file, `${JSON.stringify(e)}\n`);
  }

  /** Timing stored with the current item's answer (a cache hit), if any. */
  timing(): CachedTiming | undefined {
    return this.current.key ? this.entries.get(this.current.key)?.timing : undefined;
  }

  /** Records the measured timing of the current (fresh) answer. */
  recordTiming(timing: CachedTiming): void {
    const e = this.current.key ? this.entries.get(this.current.key) : undefined;
    if (!e || this.current.hit) return;
    e.timing = timing;
    this.put(e);
  }

  /** Wraps the generator: a known input replays the stored answer, a new one is stored. */
  wrapGenerator(g: Generator): void {
    const original = g.generate.bind(g);
    g.generate = (input: GenerateInput) => this.replayOrRun(input, original);
  }

  wrapRewriter(r: Rewriter): void {
    const original = r.rewrite.bind(r);
    r.rewrite = async (input: RewriteInput) => {
      const key = this.key('rewrite', { q: input.question, h: input.history, p: input.promptContext });
      const hit = this.entries.get(key);
      this.current.rewriteHit = !!hit;
      if (hit?.rewrite) return hit.rewrite;
      const result = await original(input);
      this.put({ key, kind: 'rewrite', rewrite: result });
      return result;
    };
  }

  private async *replayOrRun(
    input: GenerateInput,
    original: (i: GenerateInput) => AsyncIterable<GenerationEvent>,
  ): AsyncIterable<GenerationEvent> {
    // The analysis is derived from the question and query the key holds: left out, keys stay as they were.
    const { signal: _signal, analysis: _analysis, ...rest } = input;
    const key = this.key('answer', rest);
    const hit = this.entries.get(key);
    this.current = { ...this.current, key, hit: !!hit?.events };
    if (hit?.events) {
      yield* hit.events;
      return;
    }
    const events: GenerationEvent[] = [];
    for await (const e of original(input)) {
      events.push(e);
      yield e;
    }
    this.put({ key, kind: 'answer', events });
  }
}
