/* SharePoint benchmark (npm run bench:sharepoint, see bench/sharepoint/run.js for the options):
 * listing, planning and indexing rates of a synthetic library of tiny text files through the
 * product as a user runs it, on the embedded defaults and on Elasticsearch, with Temporal history
 * sizes and the product's RSS over time. Writes bench/sharepoint/results-<files>.json. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BenchEngine, benchLibrary, LibraryBenchResult } from './library-bench';

const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const ENGINES = (process.env.BENCH_ENGINES ?? 'embedded,elasticsearch').split(',') as BenchEngine[];
const WINDOW = Number(process.env.BENCH_WINDOW ?? 64);
const EMBEDDER = (process.env.BENCH_EMBEDDER ?? 'minilm') as 'minilm' | 'hashing';
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 3600_000);
const LISTING_ONLY = process.env.BENCH_LISTING_ONLY === '1';
const OUT = process.env.BENCH_OUT ?? path.resolve(__dirname, `../../bench/sharepoint/results-${FILES}.json`);
const log = (s: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);

const row = (r: LibraryBenchResult) =>
  `| ${r.engine} | ${r.files} | ${Math.round((r.files / r.listMs) * 1000)} | ${r.listAndPlanMs === null ? '-' : `${Math.round(r.listAndPlanMs / 1000)} s`} | ` +
  `${r.completed} in ${Math.round(r.completedMs / 1000)} s: ${r.filesPerSec} | ${r.runs} | ${r.maxHistoryLength} | ${r.maxChildHistoryLength} | ` +
  `${r.peakNodeRssMb} (${r.rssFirstQuarterMb} -> ${r.rssLastQuarterMb}) | ${r.peakTreeRssMb} | ${r.cpuMsPerFile} ${JSON.stringify(r.cpuSeconds)} | ${r.loadAverage.start[0]}-${r.loadAverage.end[0]} |`;

it(`indexes a ${FILES}-file SharePoint library`, async () => {
  const results: LibraryBenchResult[] = [];
  for (const engine of ENGINES) {
    const r = await benchLibrary({
      files: FILES,
      engine,
      window: WINDOW,
      embedder: EMBEDDER,
      timeoutMs: TIMEOUT_MS,
      listingOnly: LISTING_ONLY,
      nodeArgs: process.env.BENCH_PRODUCT_NODE_ARGS?.split(' ').filter(Boolean),
      log,
    });
    results.push(r);
    fs.writeFileSync(
      OUT,
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
          results,
        },
        null,
        2,
      ) + '\n',
    );
    log(`wrote ${OUT}`);
  }
  process.stdout.write(
    `\n| engine | files | listing (files/s) | listed + planned | COMPLETE in s: files/s | runs | max run history | max child history | node RSS peak MB (first -> last quarter) | tree RSS peak MB | CPU ms/file (s by process) | load |\n` +
      `|---|---|---|---|---|---|---|---|---|---|---|---|\n` +
      results.map(row).join('\n') +
      '\n',
  );
  for (const r of results) {
    if (LISTING_ONLY) expect(r.listAndPlanMs).not.toBeNull();
    else if (r.indexMs !== null) {
      expect(r.statusCounts.COMPLETE).toBe(FILES);
      expect(r.distinctSourceIds).toBe(FILES);
    }
  }
});
