// The benchmark's corpora embedded per embedder (the dev corpus, SciFact and their queries), and
// the synthetic latency set.
import { Embedder } from '@docqa/embeddings';
import { ChunkRecord } from '@docqa/search';
import {
  embedCached,
  loadQa,
  loadSciFact,
  queryEmbedder,
  RawChunk,
  syntheticChunks,
  syntheticQueries,
} from './corpus';
import { log, SYNTHETIC, SYNTHETIC_VECTORS } from './settings';

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

/** One embedder's vectors of the dev corpus, SciFact and their queries. */
export interface Embedded {
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

/** The corpora and their queries embedded by each embedder (vectors cached). */
export async function embedSpaces(
  embedders: Embedder[],
  devRaw: RawChunk[],
  sciRaw: RawChunk[],
  qa: ReturnType<typeof loadQa>,
  sci: ReturnType<typeof loadSciFact>,
): Promise<Embedded[]> {
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
  return spaces;
}

/** The synthetic latency set (BENCH_SYNTHETIC chunks, 320 queries) in `main`'s vector space. */
export interface SyntheticSet {
  chunks: ChunkRecord[];
  queryTexts: string[];
  queryVectors: number[][];
  /** Seconds the model took to embed it (BENCH_SYNTHETIC_VECTORS=model only). */
  embedSeconds?: number;
}

export async function syntheticSet(main: Embedder): Promise<SyntheticSet> {
  const synRaw = SYNTHETIC > 0 ? syntheticChunks(SYNTHETIC) : [];
  const synQueryTexts = synRaw.length ? syntheticQueries(synRaw, 320) : [];
  let syn: ChunkRecord[] = [];
  let synVectors: number[][] = [];
  let embedSeconds: number | undefined;
  if (synRaw.length && SYNTHETIC_VECTORS === 'model') {
    const t0 = Date.now();
    syn = await embedChunks(main, synRaw, 'synthetic');
    synVectors = await embedCached(queryEmbedder(main), synQueryTexts);
    embedSeconds = +((Date.now() - t0) / 1000).toFixed(1);
    log(`${main.modelName}: embedded ${synRaw.length} synthetic chunks in ${embedSeconds} s`);
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
  return { chunks: syn, queryTexts: synQueryTexts, queryVectors: synVectors, embedSeconds };
}
