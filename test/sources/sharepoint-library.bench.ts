/* SharePoint benchmark: listing rate and end-to-end indexing rate of a synthetic library of small
 * text files through the real service (API + worker in one process, Temporal dev server, Postgres,
 * Elasticsearch, the real MSAL and Graph clients against the local Graph stand-in), plus the peak
 * RSS of that process and the history size of each docset workflow run.
 *   npm run bench:sharepoint                      (10,000 files)
 *   BENCH_FILES=2000 BENCH_WINDOW=32 npm run bench:sharepoint
 * Writes bench/sharepoint/results.json and prints a Markdown row. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { indexLargeLibrary } from './large-library';

const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 64);
const CHILDREN_PER_RUN = Number(process.env.BENCH_CHILDREN_PER_RUN ?? 500);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 3 * 3600_000);
const log = (s: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);

it(`indexes a ${FILES}-file SharePoint library`, async () => {
  const r = await indexLargeLibrary({
    files: FILES,
    window: WINDOW,
    childrenPerRun: CHILDREN_PER_RUN,
    timeoutMs: TIMEOUT_MS,
    log,
  });
  const result = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    window: WINDOW,
    childrenPerRun: CHILDREN_PER_RUN,
    ...r,
    listFilesPerSec: Math.round((r.files / r.listMs) * 1000),
    indexFilesPerSec: Math.round((r.files / r.indexMs) * 10_000) / 10,
  };
  fs.writeFileSync(
    path.resolve(__dirname, '../../bench/sharepoint/results.json'),
    JSON.stringify(result, null, 2) + '\n',
  );
  log(JSON.stringify(result));
  process.stdout.write(
    `\n| files | folders | listing (files/s) | indexing (files/s) | wall | runs | max history events | peak RSS |\n` +
      `|---|---|---|---|---|---|---|---|\n` +
      `| ${r.files} | ${r.folders} | ${result.listFilesPerSec} | ${result.indexFilesPerSec} | ${Math.round(r.indexMs / 1000)} s | ${r.runs} | ${r.maxHistoryLength} | ${r.peakRssMb} MB |\n`,
  );
  expect(r.statusCounts).toEqual({ COMPLETE: FILES });
  expect(r.distinctSourceIds).toBe(FILES);
});
