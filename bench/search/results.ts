// The search benchmark's results file: what ran where, then the measures (run.ts adds them).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WITH_CONTEXT } from './corpus';
import { loadAvg, log, ROOT, SYNTHETIC } from './settings';

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

/** The results' opening fields: when, which commit, which machine and which corpus preparation. */
export function resultsHeader(): Record<string, unknown> {
  return {
    date: new Date().toISOString(),
    commit: gitCommit(),
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    loadAverageAtStart: loadAvg(),
    chunker: 'production (libs/indexing chunkPages: ~1,200 characters, 240 overlap, never across pages)',
    documentContext: WITH_CONTEXT
      ? 'as indexing writes it (prepareDocument: title, names and section as searchable fields and in the embedded text)'
      : 'none (BENCH_CONTEXT=0: bare chunk text)',
    synthetic: SYNTHETIC,
  };
}

/** Written after every engine, so a failure later keeps what was measured. */
export function writeResults(results: unknown): void {
  const out = process.env.BENCH_OUT ?? path.join(ROOT, 'bench/search/results.json');
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${out}`);
}
