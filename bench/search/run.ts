/* Search benchmark: retrieval quality, the local embedder's throughput, bulk throughput and query
 * latency of both engines. Chunks come from the production chunker (libs/indexing).
 *   npm run bench:search                          (MiniLM, both engines, 20,000 synthetic chunks)
 *   BENCH_SYNTHETIC=0 npm run bench:search        (quality and embedder throughput only)
 *   BENCH_SYNTHETIC_VECTORS=model npm run bench:search (embed the synthetic set with the model too)
 *   BENCH_EMBEDDER=hashing npm run bench:search   (the hashing embedder as the main one)
 *   BENCH_COMPARE_HASHING=0 npm run bench:search  (skip the hashing embedder's quality pass)
 *   BENCH_ELASTICSEARCH_URL=http://... npm run bench:search (reuse a running Elasticsearch)
 *   BENCH_ENGINES=embedded npm run bench:search
 *   LOCAL_EMBEDDER_PRECISION=fp32 npm run bench:search (the fp32 graph; default: the product's `auto`)
 * Writes bench/search/results.json (after every engine) and prints it. */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { percentile } from '../../test/support/stats';
import {
  defaultLocalModelDir,
  Embedder,
  LOCAL_EMBEDDER_SESSIONS,
  LOCAL_EMBEDDER_THREADS,
  LocalHashingEmbedder,
  OnnxEmbedder,
} from '@docqa/embeddings';
import {
  ChunkRecord,
  ElasticsearchSearchIndex,
  EmbeddedSearchIndex,
  SearchIndex,
  SearchMode,
  SearchQuery,
} from '@docqa/search';
import {
  distinctDocuments,
  embedCached,
  queryEmbedder,
  loadDevCorpus,
  loadQa,
  loadSciFact,
  ndcgAt,
  RawChunk,
  sciFactChunks,
  WITH_CONTEXT,
  EMBEDDER_PRECISION,
  syntheticChunks,
  syntheticQueries,
} from './corpus';

const ROOT = path.resolve(__dirname, '../../../..');
const SHARED = process.env.BENCH_SHARED ?? path.resolve(ROOT, '../shared');
const SYNTHETIC = Number(process.env.BENCH_SYNTHETIC ?? 20_000);
const ENGINES = (process.env.BENCH_ENGINES ?? 'elasticsearch,embedded').split(',');
const MAIN_EMBEDDER = process.env.BENCH_EMBEDDER ?? 'minilm';
const COMPARE_HASHING = MAIN_EMBEDDER !== 'hashing' && process.env.BENCH_COMPARE_HASHING !== '0';
const MODEL_DIR = process.env.LOCAL_EMBEDDER_MODEL_DIR ?? defaultLocalModelDir();
// as the product runs them (libs/embeddings tuning)
const SESSIONS = LOCAL_EMBEDDER_SESSIONS;
const THREADS = LOCAL_EMBEDDER_THREADS;
/** Chunks timed per batch size in the throughput pass (dev-corpus chunks, production chunker). */
const THROUGHPUT_SAMPLE = Number(process.env.BENCH_THROUGHPUT_SAMPLE ?? 512);
/** Vectors of the synthetic latency set: `random` (default with the ONNX model) or `model`. */
const SYNTHETIC_VECTORS =
  process.env.BENCH_SYNTHETIC_VECTORS ?? (MAIN_EMBEDDER === 'hashing' ? 'model' : 'random');
const MODES: SearchMode[] = ['bm25', 'vector', 'hybrid'];
const BATCH = 2000;
/** Chunk hits fetched per SciFact query before collapsing to the top 10 distinct abstracts. */
const SCIFACT_CHUNK_DEPTH = 30;

const log = (s: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}`);
const loadAvg = () => os.loadavg().map((x) => +x.toFixed(2));

/** Deterministic unit vectors (Gaussian by Box-Muller over a seeded LCG, then normalised). */
function randomUnitVectors(dimensions: number, seed: number): () => number[] {
  let s = seed >>> 0;
  const u = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 1) / 2 ** 32;
  };
  return () => {
    const v = Array.from(
      { length: dimensions },
      () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u()),
    );
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
}

/** Quality variants: the three modes, plus hybrid at the embedder's weight when it is not 1. */
function variants(e: Embedder): Array<{ label: string; mode: SearchMode; fusion?: SearchQuery['fusion'] }> {
  const out: Array<{ label: string; mode: SearchMode; fusion?: SearchQuery['fusion'] }> = MODES.map(
    (mode) => ({ label: mode, mode }),
  );
  // the other fusion method beside the default (convex), on the same legs
  out.push({
    label: 'hybrid (rrf)',
    mode: 'hybrid',
    fusion: { method: 'rrf', vectorWeight: e.recommendedVectorWeight },
  });
  if (e.recommendedVectorWeight !== 1) {
    out.push({
      label: `hybrid (vector weight ${e.recommendedVectorWeight})`,
      mode: 'hybrid',
      fusion: { vectorWeight: e.recommendedVectorWeight },
    });
  }
  return out;
}

interface Embedded {
  embedder: Embedder;
  dev: ChunkRecord[];
  sci: ChunkRecord[];
  qaVectors: number[][];
  sciVectors: number[][];
  embedSeconds: number;
}

async function embedChunks(e: Embedder, raw: RawChunk[], docSetName: string): Promise<ChunkRecord[]> {
  const vectors = await embedCached(
    e,
    raw.map((c) => c.embeddingText ?? c.text),
  );
  return raw.map(({ embeddingText: _embedded, ...c }, i) => ({
    ...c,
    accountId: 1,
    docSetName,
    sourceType: 'S3',
    sourceId: c.fileName,
    embedding: vectors[i],
  }));
}

/** chunks/s of the ONNX embedder at each batch size, on the same sample, after a warm-up batch. */
async function embedderThroughput(sample: RawChunk[]): Promise<Record<string, unknown>> {
  const texts = sample.map((c) => c.text);
  const out: Record<string, unknown> = {
    sample: `${texts.length} dev-corpus chunks (production chunker, mean ${Math.round(
      texts.reduce((s, t) => s + t.length, 0) / texts.length,
    )} characters)`,
    sessions: SESSIONS,
    threads: THREADS,
  };
  for (const batchSize of [8, 32]) {
    const e = await OnnxEmbedder.load({
      dir: MODEL_DIR,
      precision: EMBEDDER_PRECISION,
      sessions: SESSIONS,
      threads: THREADS,
      batchSize,
    });
    try {
      await e.embedDocuments(texts.slice(0, batchSize));
      const load = loadAvg();
      const t0 = process.hrtime.bigint();
      await e.embedDocuments(texts);
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      out[`batch ${batchSize}`] = {
        chunksPerSecond: +(texts.length / s).toFixed(1),
        seconds: +s.toFixed(1),
        rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
        loadAverage: [load, loadAvg()],
      };
      log(`embedder batch ${batchSize}: ${JSON.stringify(out[`batch ${batchSize}`])}`);
    } finally {
      await e.close();
    }
  }
  return out;
}

async function bulk(index: SearchIndex, chunks: ChunkRecord[]): Promise<{ ms: number; perSec: number }> {
  const t0 = Date.now();
  for (let i = 0; i < chunks.length; i += BATCH) await index.upsert(chunks.slice(i, i + BATCH));
  const ms = Date.now() - t0;
  return { ms, perSec: Math.round(chunks.length / (ms / 1000)) };
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
    p50: r(percentile(times, 50)),
    p95: r(percentile(times, 95)),
    qps: Math.round(queries.length / wall),
    n: times.length,
  };
}

interface EngineHandle {
  index: SearchIndex;
  close(): Promise<void>;
}

async function openEngine(name: string, space: Embedder, esUrl?: string): Promise<EngineHandle> {
  const s = { modelName: space.modelName, dimensions: space.dimensions };
  if (name === 'elasticsearch') {
    const prefix = `bench-${Date.now()}`;
    const index = new ElasticsearchSearchIndex({ url: esUrl!, prefix, space: s });
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
  const index = new EmbeddedSearchIndex({ dir, space: s });
  return {
    index,
    close: async () => {
      await index.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Dev QA hit@1/@5 by file and page, and SciFact nDCG@10 over distinct abstracts, per variant. */
async function quality(
  engine: string,
  index: SearchIndex,
  x: Embedded,
  qa: ReturnType<typeof loadQa>,
  sci: ReturnType<typeof loadSciFact>,
): Promise<Record<string, unknown>> {
  const r: Record<string, unknown> = {};
  const name = x.embedder.modelName;
  log(`${engine}/${name}: indexing ${x.dev.length} dev chunks`);
  r.devBulk = await bulk(index, x.dev);
  const qaRes: Record<string, unknown> = {};
  for (const { label, mode, fusion } of variants(x.embedder)) {
    let h1 = 0;
    let h5 = 0;
    for (let i = 0; i < qa.length; i++) {
      const q = qa[i];
      const hits = await index.search({
        accountId: 1,
        docSetNames: ['dev'],
        text: q.question,
        vector: x.qaVectors[i],
        limit: 5,
        minimumSimilarityScore: 0,
        mode,
        fusion,
      });
      const pages = new Set([q.page, ...(q.alsoOnPages ?? [])].map(String));
      const ok = hits.map((h) => h.chunk.fileName === q.fileName && pages.has(h.chunk.pageNumber));
      if (ok[0]) h1++;
      if (ok.some(Boolean)) h5++;
    }
    qaRes[label] = { hit1: +(h1 / qa.length).toFixed(3), hit5: +(h5 / qa.length).toFixed(3) };
  }
  r.devQa = qaRes;
  log(`${engine}/${name}: dev QA ${JSON.stringify(qaRes)}`);

  log(`${engine}/${name}: indexing ${x.sci.length} SciFact chunks`);
  r.scifactBulk = await bulk(index, x.sci);
  const sciRes: Record<string, number> = {};
  for (const { label, mode, fusion } of variants(x.embedder)) {
    let sum = 0;
    for (let i = 0; i < sci.queries.length; i++) {
      const hits = await index.search({
        accountId: 1,
        docSetNames: ['scifact'],
        text: sci.queries[i].text,
        vector: x.sciVectors[i],
        limit: SCIFACT_CHUNK_DEPTH,
        minimumSimilarityScore: 0,
        mode,
        fusion,
      });
      const ranked = distinctDocuments(
        hits.map((h) => h.chunk.documentId),
        10,
      );
      sum += ndcgAt(10, ranked, sci.qrels.get(sci.queries[i].id)!);
    }
    sciRes[label] = +(sum / sci.queries.length).toFixed(4);
  }
  r.scifactNdcg10 = sciRes;
  log(`${engine}/${name}: SciFact nDCG@10 ${JSON.stringify(sciRes)}`);
  return r;
}

/** Written after every engine, so a failure later keeps what was measured. */
function writeResults(results: unknown): void {
  const out = process.env.BENCH_OUT ?? path.join(ROOT, 'bench/search/results.json');
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${out}`);
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

async function main() {
  const results: Record<string, unknown> = {
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

  log('extracting the dev corpus with unpdf');
  const devRaw = await loadDevCorpus(path.join(SHARED, 'corpus/dev'));
  const qa = loadQa(path.join(SHARED, 'corpus/dev/qa.jsonl'));
  const sci = loadSciFact(path.join(SHARED, 'benchmarks/scifact'));
  const sciRaw = sciFactChunks(sci);
  results.corpora = {
    dev: { chunks: devRaw.length, questions: qa.length },
    scifact: { abstracts: sci.docs.length, chunks: sciRaw.length, queries: sci.queries.length },
  };
  log(`corpora: ${JSON.stringify(results.corpora)}`);

  const embedders: Embedder[] = [];
  if (MAIN_EMBEDDER === 'minilm') {
    results.embedderThroughput = await embedderThroughput(devRaw.slice(0, THROUGHPUT_SAMPLE));
    embedders.push(
      await OnnxEmbedder.load({
        dir: MODEL_DIR,
        precision: EMBEDDER_PRECISION,
        sessions: SESSIONS,
        threads: THREADS,
        batchSize: 8,
      }),
    );
  } else embedders.push(new LocalHashingEmbedder());
  if (COMPARE_HASHING) embedders.push(new LocalHashingEmbedder());
  const main = embedders[0];
  results.embedders = embedders.map((e) => `${e.modelName} (${e.dimensions} dims)`);

  const spaces: Embedded[] = [];
  for (const e of embedders) {
    const t0 = Date.now();
    log(
      `${e.modelName}: embedding ${devRaw.length + sciRaw.length} chunks and ${qa.length + sci.queries.length} queries`,
    );
    const dev = await embedChunks(e, devRaw, 'dev');
    const sciChunks = await embedChunks(e, sciRaw, 'scifact');
    // queries as the product embeds them (embedQuery), cached like documents
    const qaVectors = await embedCached(
      queryEmbedder(e),
      qa.map((q) => q.question),
    );
    const sciVectors = await embedCached(
      queryEmbedder(e),
      sci.queries.map((q) => q.text),
    );
    const embedSeconds = +((Date.now() - t0) / 1000).toFixed(1);
    log(`${e.modelName}: embedded in ${embedSeconds} s`);
    spaces.push({ embedder: e, dev, sci: sciChunks, qaVectors, sciVectors, embedSeconds });
  }
  results.embedSeconds = Object.fromEntries(spaces.map((s) => [s.embedder.modelName, s.embedSeconds]));

  const synRaw = SYNTHETIC > 0 ? syntheticChunks(SYNTHETIC) : [];
  const synQueryTexts = synRaw.length ? syntheticQueries(synRaw, 320) : [];
  let syn: ChunkRecord[] = [];
  let synVectors: number[][] = [];
  if (synRaw.length && SYNTHETIC_VECTORS === 'model') {
    const t0 = Date.now();
    syn = await embedChunks(main, synRaw, 'synthetic');
    synVectors = await embedCached(queryEmbedder(main), synQueryTexts);
    results.syntheticEmbedSeconds = +((Date.now() - t0) / 1000).toFixed(1);
    log(
      `${main.modelName}: embedded ${synRaw.length} synthetic chunks in ${results.syntheticEmbedSeconds} s`,
    );
  } else if (synRaw.length) {
    // Latency does not depend on what vectors mean; nonsense text through the model would only
    // cost time (hours on a loaded 2-core machine). Seeded random unit vectors of the model's size.
    const rnd = randomUnitVectors(main.dimensions, 20251124);
    syn = synRaw.map((c) => ({
      ...c,
      accountId: 1,
      docSetName: 'synthetic',
      sourceType: 'S3',
      sourceId: c.fileName,
      embedding: rnd(),
    }));
    synVectors = synQueryTexts.map(() => rnd());
  }
  results.syntheticVectors =
    SYNTHETIC_VECTORS === 'model'
      ? `${main.modelName}`
      : `seeded random unit vectors, ${main.dimensions} dims`;

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

  const engines: Record<string, Record<string, unknown>> = {};
  results.engines = engines;
  try {
    for (const engine of ENGINES) {
      const r: Record<string, unknown> = { quality: {} };
      engines[engine] = r;
      for (const x of spaces) {
        const h = await openEngine(engine, x.embedder, esUrl);
        try {
          (r.quality as Record<string, unknown>)[x.embedder.modelName] = await quality(
            engine,
            h.index,
            x,
            qa,
            sci,
          );
          if (x.embedder === main && syn.length) {
            log(`${engine}: bulk-indexing ${syn.length} synthetic chunks`);
            r.syntheticBulk = await bulk(h.index, syn);
            log(`${engine}: synthetic bulk ${JSON.stringify(r.syntheticBulk)}`);
            if (h.index instanceof EmbeddedSearchIndex) await h.index.optimize();
            r.chunksIndexed = (await h.index.stats(1)).chunks;
            const lat: Record<string, unknown> = {};
            for (const mode of MODES) {
              const qs: SearchQuery[] = synQueryTexts.map((text, i) => ({
                accountId: 1,
                docSetNames: ['synthetic'],
                text,
                vector: synVectors[i],
                limit: 10,
                minimumSimilarityScore: 0,
                mode,
              }));
              await latency(h.index, qs.slice(0, 20), 4); // warm-up
              lat[`${mode} c=1`] = await latency(h.index, qs.slice(0, 100), 1);
              lat[`${mode} c=16`] = await latency(h.index, qs, 16);
              log(
                `${engine}: ${mode} ${JSON.stringify(lat[`${mode} c=1`])} ${JSON.stringify(lat[`${mode} c=16`])}`,
              );
            }
            r.latencyMs = lat;
            r.loadAverageAfterLatency = loadAvg();
          }
        } finally {
          await h.close().catch((err: Error) => log(`${engine}: cleanup failed: ${err.message}`));
          writeResults(results);
        }
      }
    }
  } finally {
    await es?.stop();
    for (const e of embedders) await e.close?.();
  }
  results.loadAverageAtEnd = loadAvg();
  writeResults(results);
  console.log(JSON.stringify(results, null, 2));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
