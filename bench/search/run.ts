/* Search benchmark: bulk throughput, query latency and retrieval quality of both engines.
 *   npm run bench:search                       (synthetic set of 100,000 chunks)
 *   BENCH_SYNTHETIC=20000 npm run bench:search (smaller synthetic set)
 *   BENCH_ELASTICSEARCH_URL=http://... npm run bench:search (reuse a running Elasticsearch)
 *   BENCH_ENGINES=embedded npm run bench:search
 * Writes bench/search/results.json and prints a Markdown report. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalHashingEmbedder } from '@docqa/llm';
import {
  ChunkRecord,
  ElasticsearchSearchIndex,
  EmbeddedSearchIndex,
  SearchIndex,
  SearchMode,
  SearchQuery,
} from '@docqa/search';
import {
  loadDevCorpus,
  loadQa,
  loadSciFact,
  ndcgAt,
  RawChunk,
  syntheticChunks,
  syntheticQueries,
} from './corpus';

const ROOT = path.resolve(__dirname, '../../../..');
const SHARED = process.env.BENCH_SHARED ?? '/work/shared';
const SYNTHETIC = Number(process.env.BENCH_SYNTHETIC ?? 100_000);
const ENGINES = (process.env.BENCH_ENGINES ?? 'elasticsearch,embedded').split(',');
const MODES: SearchMode[] = ['bm25', 'vector', 'hybrid'];
/** Quality variants: the three modes, plus hybrid with the embedder's recommended vector weight. */
const VARIANTS: Array<{ label: string; mode: SearchMode; fusion?: SearchQuery['fusion'] }> = [
  ...MODES.map((mode) => ({ label: mode, mode })),
  {
    label: `hybrid (vector weight ${new LocalHashingEmbedder().recommendedVectorWeight})`,
    mode: 'hybrid',
    fusion: { vectorWeight: new LocalHashingEmbedder().recommendedVectorWeight },
  },
];
const BATCH = 2000;

const embedder = new LocalHashingEmbedder();
const space = { modelName: embedder.modelName, dimensions: embedder.dimensions };

const log = (s: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}`);

function embedAll(raw: RawChunk[], accountId: string, docSetName: string): ChunkRecord[] {
  const t0 = Date.now();
  const out = raw.map((c) => ({
    ...c,
    accountId,
    docSetName,
    sourceType: 'S3',
    sourceId: c.fileName,
    embedding: embedder.embed(c.text),
  }));
  log(`embedded ${raw.length} chunks in ${Date.now() - t0} ms (local hashing embedder)`);
  return out;
}

async function bulk(index: SearchIndex, chunks: ChunkRecord[]): Promise<{ ms: number; perSec: number }> {
  const t0 = Date.now();
  for (let i = 0; i < chunks.length; i += BATCH) await index.upsert(chunks.slice(i, i + BATCH));
  const ms = Date.now() - t0;
  return { ms, perSec: Math.round(chunks.length / (ms / 1000)) };
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function latency(
  index: SearchIndex,
  queries: SearchQuery[],
  concurrency: number,
): Promise<{ p50: number; p95: number; qps: number; n: number }> {
  const times: number[] = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= queries.length) return;
        const s = process.hrtime.bigint();
        await index.search(queries[i]);
        times.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
    }),
  );
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  times.sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 10) / 10;
  return {
    p50: r(pct(times, 50)),
    p95: r(pct(times, 95)),
    qps: Math.round(queries.length / wall),
    n: times.length,
  };
}

interface EngineHandle {
  index: SearchIndex;
  close(): Promise<void>;
}

async function openEngine(name: string, esUrl?: string): Promise<EngineHandle> {
  if (name === 'elasticsearch') {
    const prefix = `bench-${Date.now()}`;
    const index = new ElasticsearchSearchIndex({ url: esUrl!, prefix, space });
    return {
      index,
      close: async () => {
        const list = (await index.client.cat.indices({ index: `${prefix}*`, format: 'json' })) as Array<{
          index?: string;
        }>;
        for (const i of list) {
          if (i.index) await index.client.indices.delete({ index: i.index }, { requestTimeout: 120_000 });
        }
        await index.client.indices.deleteIndexTemplate({ name: index.indexName }).catch(() => undefined);
        await index.close();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-search-'));
  const index = new EmbeddedSearchIndex({ dir, space });
  return {
    index,
    close: async () => {
      await index.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Written after every engine, so a failure later keeps what was measured. */
function writeResults(results: unknown): void {
  const out = process.env.BENCH_OUT ?? path.join(ROOT, 'bench/search/results.json');
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${out}`);
}

async function main() {
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    embedder: `${space.modelName} (${space.dimensions} dims)`,
    synthetic: SYNTHETIC,
    engines: {},
  };

  log('extracting the dev corpus with unpdf');
  const devRaw = await loadDevCorpus(path.join(SHARED, 'corpus/dev'));
  const qa = loadQa(path.join(SHARED, 'corpus/dev/qa.jsonl'));
  const sci = loadSciFact(path.join(SHARED, 'benchmarks/scifact'));
  log(
    `dev corpus: ${devRaw.length} chunks; QA: ${qa.length} answerable; SciFact: ${sci.docs.length} docs, ${sci.queries.length} queries`,
  );
  const dev = embedAll(devRaw, 'bench', 'dev');
  const sciChunks = embedAll(
    sci.docs.map((d) => ({
      documentId: d.id,
      fileName: `${d.id}.txt`,
      pageNumber: '1',
      chunkIndex: 0,
      text: d.text,
    })),
    'bench',
    'scifact',
  );
  const synRaw = SYNTHETIC > 0 ? syntheticChunks(SYNTHETIC) : [];
  const syn = embedAll(synRaw, 'bench', 'synthetic');
  const synQueryTexts = syntheticQueries(synRaw, 320);

  const qaVectors = qa.map((q) => embedder.embed(q.question));
  const sciVectors = sci.queries.map((q) => embedder.embed(q.text));
  const synVectors = synQueryTexts.map((t) => embedder.embed(t));

  let es: { url: string; stop(): Promise<void> } | undefined;
  let esUrl = process.env.BENCH_ELASTICSEARCH_URL;
  if (ENGINES.includes('elasticsearch') && !esUrl) {
    log('starting Elasticsearch (test/infra/elasticsearch)');
    const infra = require(path.join(ROOT, 'test/infra/elasticsearch.js')) as {
      startElasticsearch(): Promise<{ url: string; stop(): Promise<void> }>;
    };
    es = await infra.startElasticsearch();
    esUrl = es.url;
  }

  try {
    for (const engine of ENGINES) {
      const r: Record<string, unknown> = {};
      (results.engines as Record<string, unknown>)[engine] = r;
      const h = await openEngine(engine, esUrl);
      try {
        const index = h.index;
        log(`${engine}: indexing dev corpus`);
        r.devBulk = await bulk(index, dev);

        const qaRes: Record<string, unknown> = {};
        for (const { label, mode, fusion } of VARIANTS) {
          let h1 = 0;
          let h5 = 0;
          for (let i = 0; i < qa.length; i++) {
            const q = qa[i];
            const hits = await index.search({
              accountId: 'bench',
              docSetNames: ['dev'],
              text: q.question,
              vector: qaVectors[i],
              limit: 5,
              minimumSimilarityScore: 0,
              mode,
              fusion,
            });
            const pages = new Set([q.page, ...(q.alsoOnPages ?? [])].map(String));
            const ok = hits.map((x) => x.chunk.fileName === q.fileName && pages.has(x.chunk.pageNumber));
            if (ok[0]) h1++;
            if (ok.some(Boolean)) h5++;
          }
          qaRes[label] = { hit1: +(h1 / qa.length).toFixed(3), hit5: +(h5 / qa.length).toFixed(3) };
        }
        r.devQa = qaRes;
        log(`${engine}: dev QA ${JSON.stringify(qaRes)}`);

        log(`${engine}: indexing SciFact`);
        r.scifactBulk = await bulk(index, sciChunks);
        const sciRes: Record<string, number> = {};
        const scifactRun = async (label: string, run: (i: number) => Promise<string[]>) => {
          let sum = 0;
          for (let i = 0; i < sci.queries.length; i++)
            sum += ndcgAt(10, await run(i), sci.qrels.get(sci.queries[i].id)!);
          sciRes[label] = +(sum / sci.queries.length).toFixed(4);
        };
        for (const { label, mode, fusion } of VARIANTS) {
          await scifactRun(label, async (i) =>
            (
              await index.search({
                accountId: 'bench',
                docSetNames: ['scifact'],
                text: sci.queries[i].text,
                vector: sciVectors[i],
                limit: 10,
                minimumSimilarityScore: 0,
                mode,
                fusion,
              })
            ).map((x) => x.chunk.documentId),
          );
        }
        if (index instanceof ElasticsearchSearchIndex) {
          // BM25 on the English-analysed field alone (the adapter also scores the standard subfield)
          await scifactRun('bm25 (text field only)', async (i) => {
            const res = await index.client.search<{ documentId: string }>({
              index: index.alias,
              size: 10,
              _source: ['documentId'],
              query: {
                bool: {
                  filter: [{ term: { accountId: 'bench' } }, { term: { docSetName: 'scifact' } }],
                  must: [{ match: { text: sci.queries[i].text } }],
                },
              },
            });
            return res.hits.hits.map((x) => x._source!.documentId);
          });
        }
        r.scifactNdcg10 = sciRes;
        log(`${engine}: SciFact nDCG@10 ${JSON.stringify(sciRes)}`);

        if (syn.length) {
          log(`${engine}: bulk-indexing ${syn.length} synthetic chunks`);
          r.syntheticBulk = await bulk(index, syn);
          log(`${engine}: synthetic bulk ${JSON.stringify(r.syntheticBulk)}`);
          if (index instanceof EmbeddedSearchIndex) await index.optimize();
          const stats = await index.stats('bench');
          r.chunksIndexed = stats.chunks;
          const lat: Record<string, unknown> = {};
          for (const mode of MODES) {
            const qs: SearchQuery[] = synQueryTexts.map((text, i) => ({
              accountId: 'bench',
              docSetNames: ['synthetic'],
              text,
              vector: synVectors[i],
              limit: 10,
              minimumSimilarityScore: 0,
              mode,
            }));
            await latency(index, qs.slice(0, 20), 4); // warm-up
            lat[`${mode} c=1`] = await latency(index, qs.slice(0, 100), 1);
            lat[`${mode} c=16`] = await latency(index, qs, 16);
            log(
              `${engine}: ${mode} ${JSON.stringify(lat[`${mode} c=1`])} ${JSON.stringify(lat[`${mode} c=16`])}`,
            );
          }
          r.latencyMs = lat;
        }
      } finally {
        await h.close().catch((err: Error) => log(`${engine}: cleanup failed: ${err.message}`));
        writeResults(results);
      }
    }
  } finally {
    await es?.stop();
  }
  writeResults(results);
  console.log(JSON.stringify(results, null, 2));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
