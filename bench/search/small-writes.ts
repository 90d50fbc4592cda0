/* Issue 17 tuning aid (not part of npm test): the embedded engine alone under the write pattern of a
 * library of small files, one-chunk documents upserted by `concurrency` callers. Prints per 1,000
 * documents the process's RSS, JS heap and engine caches, the wall time, the process's CPU seconds
 * and the p50 upsert time, so a change to the write path is measured without Temporal and Postgres.
 * MALLOC_MMAP_THRESHOLD_=1048576 fixes glibc's mmap threshold (docs/benchmarks/sharepoint.md, 2026-11-27).
 *   [BENCH_CACHE_MB=N] [MALLOC_MMAP_THRESHOLD_=N] node -r ./test/support/ts-register.js bench/search/small-writes.ts [documents] [concurrency] */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalHashingEmbedder } from '@docqa/embeddings';
import { EmbeddedSearchIndex } from '@docqa/search';
import { percentile } from '../../test/support/stats';

const [docs = 10_000, concurrency = 16] = process.argv.slice(2).map(Number);
async function main() {
  console.log(`allocator: mmap threshold ${process.env.MALLOC_MMAP_THRESHOLD_ ?? "glibc's (rising)"}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'small-writes-'));
  // the product's hashing embedder at MiniLM's width: vectors of the right size, no model to load
  const embedder = new LocalHashingEmbedder({ dimensions: 384 });
  const space = { modelName: embedder.modelName, dimensions: embedder.dimensions };
  const cacheMb = process.env.BENCH_CACHE_MB ? Number(process.env.BENCH_CACHE_MB) : undefined;
  const index = new EmbeddedSearchIndex({ dir, space, cacheMb });
  let next = 0;
  let lapStart = Date.now();
  let lapCpu = process.cpuUsage();
  let times: number[] = [];
  let lapMaintenance = index.maintenanceTotals();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= docs) return;
      const t0 = Date.now();
      await index.upsert([
        {
          accountId: 1,
          docSetName: 'library',
          documentId: `doc-${i}`,
          fileName: `file-${i}.txt`,
          pageNumber: '1',
          sourceType: 'SHAREPOINT',
          sourceId: `item-${i}`,
          chunkIndex: 0,
          text: `Small file number ${i} of the library, folder ${i % 10}.`,
          documentTitle: `file ${i}`,
          embedding: embedder.embed(`Small file number ${i} of the library, folder ${i % 10}.`),
        },
      ]);
      times.push(Date.now() - t0);
      if ((i + 1) % 1000 === 0) {
        const cpu = process.cpuUsage(lapCpu);
        const m = index.maintenanceTotals();
        // a hybrid search meanwhile: what an ask pays while a library is being indexed
        const s0 = Date.now();
        await index.search({
          accountId: 1,
          docSetNames: ['library'],
          text: `small file folder ${i % 10}`,
          vector: embedder.embed(`small file folder ${i % 10}`),
          limit: 8,
          minimumSimilarityScore: -1,
        });
        const searchMs = Date.now() - s0;
        times.sort((a, b) => a - b);
        console.log(
          `${i + 1} docs: rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MB, engine caches ${Math.round(index.cacheBytes() / 2 ** 20)} MB, ${((Date.now() - lapStart) / 1000).toFixed(1)} s, cpu ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, upsert p50 ${percentile(times, 50)} ms, maintenance ${m.runs - lapMaintenance.runs} runs ${((m.ms - lapMaintenance.ms) / 1000).toFixed(1)} s, a search ${searchMs} ms`,
        );
        lapMaintenance = m;
        times = [];
        lapStart = Date.now();
        lapCpu = process.cpuUsage();
      }
    }
  };
  const t0 = Date.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `total ${docs} docs: ${((Date.now() - t0) / 1000).toFixed(1)} s, cpu ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`,
  );
  await index.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

void main();
