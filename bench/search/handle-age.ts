/* Issue 17 tuning aid (not part of npm test): does LanceDB's index maintenance slow down with the age
 * of the connection and table handle, apart from the table's size? The engine alone, with the
 * product's full-text columns and analysis, written 2 rows at a time with maintenance every 200
 * writes (every rows / 100 writes past 20,000 rows), as the embedded adapter does.
 *   node -r ./test/support/ts-register.js bench/search/handle-age.ts <rows> grow [reopenEvery]
 *     one growing table
 *   node -r ./test/support/ts-register.js bench/search/handle-age.ts <rows> grow <reopenEvery> release
 *     the same, giving freed memory back after each maintenance run as the adapter does
 *   node -r ./test/support/ts-register.js bench/search/handle-age.ts <rows> recreate [reopen]
 *     a table dropped and created again every 10,000 rows
 * reopenEvery: open a new connection (new caches) and table every N maintenance runs; reopen (1):
 * a new connection with each new table. Prints per 2,500 writes the wall time, maintenance seconds
 * and runs, one full-text search's time and the RSS. Results: docs/benchmarks/sharepoint.md. */
import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Schema, Utf8 } from 'apache-arrow';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { releaseFreedNativeMemory } from '@docqa/common';
import { FTS_COLUMN_OPTIONS } from '@docqa/search';

process.env.LANCE_CPU_THREADS ??= '4'; // as the product (libs/search/src/lance-runtime.ts)
const [rowsArg, mode = 'grow', reopenArg = '0', releaseArg] = process.argv.slice(2);
const RELEASE = releaseArg === 'release';
const ROWS = Number(rowsArg || 40000);
const REOPEN = Number(reopenArg);
const RECREATE_ROWS = 10_000;
const CACHE = 256n * 2n ** 20n; // the product's SEARCH_EMBEDDED_CACHE_MB (libs/search/src/tuning.ts)
const COLUMNS = Object.keys(FTS_COLUMN_OPTIONS) as (keyof typeof FTS_COLUMN_OPTIONS)[];

const words = Array.from({ length: 20000 }, (_, i) => `w${i.toString(36)}x`);
const text = (n: number) =>
  Array.from(
    { length: n },
    () => words[Math.min(words.length - 1, Math.floor(-Math.log(Math.random()) * 2000))],
  ).join(' ');
let id = 0;
const row = () => ({
  id: `id${id++}`,
  account_id: 'a',
  document_id: `doc${id >> 1}`,
  text: text(190),
  text_plain: text(190),
  section: text(5),
  doc_title: text(6),
  doc_terms: text(12),
  vector: Array.from({ length: 384 }, () => Math.random() - 0.5),
});
const utf8 = (n: string) => new Field(n, new Utf8(), false);
const schema = new Schema([
  ...['id', 'account_id', 'document_id', ...COLUMNS].map(utf8),
  new Field('vector', new FixedSizeList(384, new Field('item', new Float32(), true)), false),
]);

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'handle-age-'));
  const connect = () => lancedb.connect(dir, { session: new lancedb.Session((CACHE * 3n) / 4n, CACHE / 4n) });
  let db = await connect();
  let generation = 0;
  const create = async () => ({
    t: await db.createEmptyTable(`t${generation++}`, schema),
    indexed: false,
    rows: 0,
  });
  let table = await create();
  let maintenanceMs = 0;
  let releaseMs = 0;
  let runs = 0;
  let sinceRun = 0;
  let writes = 0;
  const t0 = Date.now();
  while (id < ROWS) {
    await table.t.add([row(), row()]);
    table.rows += 2;
    writes++;
    if (!table.indexed) {
      for (const c of COLUMNS)
        await table.t.createIndex(c, {
          config: lancedb.Index.fts(FTS_COLUMN_OPTIONS[c]),
        });
      await table.t.createIndex('account_id', { config: lancedb.Index.bitmap() });
      table.indexed = true;
    }
    if (++sinceRun >= Math.max(200, Math.round(table.rows / 100))) {
      sinceRun = 0;
      runs++;
      const m0 = Date.now();
      await table.t.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
      maintenanceMs += Date.now() - m0;
      if (RELEASE) {
        const r0 = Date.now();
        releaseFreedNativeMemory();
        releaseMs += Date.now() - r0;
      }
      if (mode === 'grow' && REOPEN > 0 && runs % REOPEN === 0) {
        const name = table.t.name;
        table.t.close();
        db.close();
        db = await connect();
        table.t = await db.openTable(name);
      }
    }
    if (mode === 'recreate' && table.rows >= RECREATE_ROWS) {
      const name = table.t.name;
      table.t.close();
      await db.dropTable(name);
      if (REOPEN > 0) {
        db.close();
        db = await connect();
      }
      table = await create();
    }
    if (writes % 2500 === 0) {
      const s0 = Date.now();
      await table.t
        .query()
        .fullTextSearch(
          new lancedb.BooleanQuery(
            COLUMNS.map((c) => [lancedb.Occur.Should, new lancedb.MatchQuery(text(6), c)]),
          ),
        )
        .where("account_id = 'a'")
        .limit(24)
        .toArray();
      console.log(
        `${mode} reopen=${REOPEN} rows ${id} wall ${((Date.now() - t0) / 1000).toFixed(0)} s maintenance ${(maintenanceMs / 1000).toFixed(1)} s in ${runs} runs, search ${Date.now() - s0} ms, released in ${releaseMs} ms, rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`,
      );
    }
  }
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
