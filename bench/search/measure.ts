// What the search benchmark measures: the embedder's throughput, bulk indexing, retrieval quality
// (dev QA hit@1/@5, SciFact nDCG@10) and query latency on the synthetic set.
import { percentile } from '../../test/support/stats';
import { Embedder } from '@docqa/embeddings';
import { ChunkRecord, EmbeddedSearchIndex, SearchIndex, SearchMode, SearchQuery } from '@docqa/search';
import { distinctDocuments, loadQa, loadSciFact, ndcgAt, RawChunk } from './corpus';
import { loadAvg, loadOnnxEmbedder, log, MODES, SESSIONS, THREADS } from './settings';
import { Embedded, SyntheticSet } from './spaces';

const BATCH = 2000;
/** Chunk hits fetched per SciFact query before collapsing to the top 10 distinct abstracts. */
const SCIFACT_CHUNK_DEPTH = 30;

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

/** chunks/s of the ONNX embedder at each batch size, on the same sample, after a warm-up batch. */
export async function embedderThroughput(sample: RawChunk[]): Promise<Record<string, unknown>> {
  const texts = sample.map((c) => c.text);
  const out: Record<string, unknown> = {
    sample: `${texts.length} dev-corpus chunks (production chunker, mean ${Math.round(
      texts.reduce((s, t) => s + t.length, 0) / texts.length,
    )} characters)`,
    sessions: SESSIONS,
    threads: THREADS,
  };
  for (const batchSize of [8, 32]) {
    const e = await loadOnnxEmbedder(batchSize);
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

/** Dev QA hit@1/@5 by file and page, and SciFact nDCG@10 over distinct abstracts, per variant. */
export async function quality(
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

/**
 * Bulk throughput and query latency (per mode, 1 and 16 at a time) on the synthetic set, written
 * into the engine's results `r` as they are measured.
 */
export async function syntheticLatency(
  engine: string,
  index: SearchIndex,
  syn: SyntheticSet,
  r: Record<string, unknown>,
): Promise<void> {
  log(`${engine}: bulk-indexing ${syn.chunks.length} synthetic chunks`);
  r.syntheticBulk = await bulk(index, syn.chunks);
  log(`${engine}: synthetic bulk ${JSON.stringify(r.syntheticBulk)}`);
  if (index instanceof EmbeddedSearchIndex) await index.optimize();
  r.chunksIndexed = (await index.stats(1)).chunks;
  const lat: Record<string, unknown> = {};
  for (const mode of MODES) {
    const qs: SearchQuery[] = syn.queryTexts.map((text, i) => ({
      accountId: 1,
      docSetNames: ['synthetic'],
      text,
      vector: syn.queryVectors[i],
      limit: 10,
      minimumSimilarityScore: 0,
      mode,
    }));
    await latency(index, qs.slice(0, 20), 4); // warm-up
    lat[`${mode} c=1`] = await latency(index, qs.slice(0, 100), 1);
    lat[`${mode} c=16`] = await latency(index, qs, 16);
    log(`${engine}: ${mode} ${JSON.stringify(lat[`${mode} c=1`])} ${JSON.stringify(lat[`${mode} c=16`])}`);
  }
  r.latencyMs = lat;
  r.loadAverageAfterLatency = loadAvg();
}
