// The soak's end checks and report: where every file ended, health after the soak, and what the
// product's own log says (event-loop stalls, its slowest asks and engine reads).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Account, Engine, P, progressOf, Soak } from './context';

/** Keep the product's log beside the soak log even when nothing went wrong (DOCQA_SOAK_KEEP_LOG=1). */
const KEEP_LOG = process.env.DOCQA_SOAK_KEEP_LOG === '1';

export interface SoakReport {
  engine: Engine;
  problems: string[];
  operations: Record<string, number>;
  runsChecked: number;
  asks: { count: number; byStatus: Record<string, number>; p50Ms: number; p95Ms: number; maxMs: number };
  /** `/health` samples; `down` counts how often each part was named (details in the soak log). */
  health: { samples: number; ok: number; unavailable: number; down: Record<string, number> };
  stuckObservations: number;
  heartbeatTimeouts: number;
  /** The product's own "event loop stalled" warnings: how many, the longest and its busy share. */
  stalls: { count: number; longestMs: number; longestBusy: number };
  /**
   * The product's own log lines of its slowest asks (which step took the time: engine reads, the
   * model, the database) and of its slowest engine reads (what the engine was doing meanwhile).
   */
  slowestAsks: string[];
  slowestReads: string[];
  final: Record<string, unknown>;
  shutdown: { code: number | null; ms: number };
}

/** The product's "event loop stalled for N ms (... held it P% ...)" warnings in its JSON log. */
function stallsIn(logFile: string): SoakReport['stalls'] {
  const out = { count: 0, longestMs: 0, longestBusy: 0 };
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    const m = /event loop stalled for (\d+) ms \(this process's code held it (\d+)%/.exec(line);
    if (!m) continue;
    out.count++;
    if (Number(m[1]) > out.longestMs) {
      out.longestMs = Number(m[1]);
      out.longestBusy = Number(m[2]) / 100;
    }
  }
  return out;
}

/** The `n` slowest of the product's log messages that `pattern` matches (group 1: message, 2: ms). */
function slowestIn(logFile: string, pattern: RegExp, n = 3): string[] {
  const found: Array<{ ms: number; line: string }> = [];
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    const m = pattern.exec(line);
    if (m) found.push({ ms: Number(m[2]), line: m[1] });
  }
  return found
    .sort((a, b) => b.ms - a.ms)
    .slice(0, n)
    .map((a) => a.line);
}

/** "ask: ..., N ms (stage times)": AskService's line per answer. */
const ASK_LINE = /"(ask: [^"]*?, (\d+) ms \([^)"]*\))"/;
/** "embedded search <read> took N ms (...)": the embedded adapter's slow-read warning. */
const SLOW_READ_LINE = /"(embedded search [^"]*? took (\d+) ms \([^)"]*\))"/;

/** Every file ended where it should, and health says ok: returns each account's final progress. */
export async function checkFinalState(soak: Soak, accounts: Account[]): Promise<Record<string, unknown>> {
  const { c, problem } = soak;
  const final: Record<string, unknown> = {};
  for (const a of accounts) {
    const p = await progressOf(soak, a);
    final[a.corpus.name] = p;
    const complete = a.corpus.files.filter((f) => f.expect === 'COMPLETE').length;
    const error = a.corpus.files.length - complete;
    if (
      p.completedCount !== complete ||
      p.errorCount !== error ||
      p.pendingCount !== 0 ||
      p.indexingCount !== 0
    )
      problem(
        `${a.corpus.name}: final state ${JSON.stringify(p)}, expected ${complete} COMPLETE and ${error} ERROR`,
      );
  }
  const finalHealth = await c.get(`${P}/health`);
  if (finalHealth.status !== 200) problem(`health after the soak: ${finalHealth.status} ${finalHealth.text}`);
  return final;
}

/**
 * What the stopped product's log (`dataDir`/app.log) says; the log is kept beside the soak log
 * when the soak found problems or stalls (or DOCQA_SOAK_KEEP_LOG=1).
 */
export function productLogFindings(
  dataDir: string,
  foundProblems: boolean,
  log: (line: string) => void,
): Pick<SoakReport, 'stalls' | 'slowestAsks' | 'slowestReads'> {
  const stalls = stallsIn(path.join(dataDir, 'app.log'));
  const slowestAsks = slowestIn(path.join(dataDir, 'app.log'), ASK_LINE);
  const slowestReads = slowestIn(path.join(dataDir, 'app.log'), SLOW_READ_LINE);
  if (foundProblems || stalls.count > 0 || KEEP_LOG) {
    // the product's own log explains a problem or a stall (what ran around it): kept beside the soak log
    const kept = `${dataDir}.app.log`;
    fs.copyFileSync(path.join(dataDir, 'app.log'), kept);
    log(`the product's log: ${kept}`);
  }
  return { stalls, slowestAsks, slowestReads };
}
