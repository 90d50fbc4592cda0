/* Before/after of two sets of eval results (the whole-set figures a ranking change must be stated
 * with), and the items whose retrieval or answer differ. Also the check that two runs of the same
 * code agree (repeatability): every item the same.
 *   npm run eval:compare -- <before-dir> [<after-dir>]      (after: bench/eval/results)
 * Typical: cp -r bench/eval/results /tmp/before; change; npm run eval -- --indexing direct;
 * npm run eval:compare -- /tmp/before */
import * as path from 'node:path';
import type { Metrics } from './metrics';
import { readResults, RESULTS_DIR, RunResult } from './report';

/** The figures compared, in the order shown. */
const FIGURES: Array<[keyof Metrics, string]> = [
  ['fileHit5', 'file@5'],
  ['pageHit5', 'page@5'],
  ['citesFile', 'cites file'],
  ['citesPage', 'cites page'],
  ['answerHasPhrase', 'phrase'],
  ['multiFound', 'list/compare found'],
  ['unanswerableNoCitation', 'unanswerable declined'],
  ['answerableRefused', 'answerable refused'],
];

export interface RunComparison {
  run: string;
  /** Figure label -> [before, after] on all items and on the held-out half. */
  figures: Array<{ label: string; all: [number, number]; heldOut: [number, number] }>;
  /** Items whose first 5 chunks differ; whose citations differ; whose scored outcome differs. */
  topChanged: string[];
  citationsChanged: string[];
  outcomeChanged: string[];
  /** Items in only one of the two runs. */
  unmatched: string[];
}

const runKey = (r: RunResult) => `${r.corpus}.${r.engine}.${r.provider}`;

const OUTCOME = ['fileHit5', 'pageHit5', 'citesFile', 'citesPage', 'answerHasPhrase', 'refused'] as const;

/** Runs present on both sides, compared item by item. */
export function compareRuns(before: RunResult[], after: RunResult[]): RunComparison[] {
  const earlier = new Map(before.map((r) => [runKey(r), r]));
  const out: RunComparison[] = [];
  for (const a of after) {
    const b = earlier.get(runKey(a));
    if (!b) continue;
    const items = new Map(b.items.map((i) => [i.id, i]));
    const c: RunComparison = {
      run: runKey(a),
      figures: FIGURES.map(([key, label]) => ({
        label,
        all: [b.metrics[key], a.metrics[key]],
        heldOut: [b.heldOut[key], a.heldOut[key]],
      })),
      topChanged: [],
      citationsChanged: [],
      outcomeChanged: [],
      unmatched: [],
    };
    for (const x of a.items) {
      const y = items.get(x.id);
      items.delete(x.id);
      if (!y) {
        c.unmatched.push(x.id);
        continue;
      }
      if (x.top.join() !== y.top.join()) c.topChanged.push(x.id);
      const cites = (i: typeof x) => i.cited.map((p) => `${p.fileName}#${p.pageNumber}`).join();
      if (cites(x) !== cites(y)) c.citationsChanged.push(x.id);
      if (OUTCOME.some((k) => x[k] !== y[k])) c.outcomeChanged.push(x.id);
    }
    c.unmatched.push(...items.keys());
    out.push(c);
  }
  return out;
}

const shown = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : '-');

export function renderComparison(cs: RunComparison[]): string {
  const lines: string[] = [];
  for (const c of cs) {
    lines.push(`## ${c.run}`, '', '| figure | all: before -> after | held-out half |', '|---|---|---|');
    for (const f of c.figures) {
      if (!Number.isFinite(f.all[0]) && !Number.isFinite(f.all[1])) continue; // not in this corpus
      const mark = f.all[0] === f.all[1] ? '' : ' *';
      lines.push(
        `| ${f.label} | ${shown(f.all[0])} -> ${shown(f.all[1])}${mark} | ${shown(f.heldOut[0])} -> ${shown(f.heldOut[1])} |`,
      );
    }
    const list = (ids: string[]) => (ids.length ? `${ids.length} (${ids.join(', ')})` : '0');
    lines.push(
      '',
      `top 5 changed: ${list(c.topChanged)}`,
      `citations changed: ${list(c.citationsChanged)}`,
      `outcome changed: ${list(c.outcomeChanged)}`,
      ...(c.unmatched.length ? [`in one run only: ${list(c.unmatched)}`] : []),
      '',
    );
  }
  return lines.join('\n');
}

function main() {
  const [beforeDir, afterDir = RESULTS_DIR] = process.argv.slice(2);
  if (!beforeDir) {
    console.error('usage: npm run eval:compare -- <before-dir> [<after-dir>]');
    process.exit(2);
  }
  const cs = compareRuns(readResults(path.resolve(beforeDir)), readResults(path.resolve(afterDir)));
  if (cs.length === 0) {
    console.error(`no run (corpus, engine, provider) is in both ${beforeDir} and ${afterDir}`);
    process.exit(1);
  }
  console.log(renderComparison(cs));
}

if (require.main === module) main();
