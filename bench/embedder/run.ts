/* Embedder benchmark: throughput of the local embedders (all-MiniLM-L6-v2 and bge-small-en-v1.5 through
 * OnnxEmbedder, the product's code path: tokenizer and onnxruntime in the inference thread) on real chunks of the
 * dev corpus, variant against variant in interleaved rounds, with where the time goes and how far
 * each variant's vectors are from fp32's.
 *   npm run bench:embedder
 *   BENCH_VARIANTS=fp32:b8:t2,int8:b8:t2 BENCH_ROUNDS=3 npm run bench:embedder
 *   BENCH_SCIFACT=1 npm run bench:embedder        (also SciFact nDCG@10 per precision)
 *   BENCH_VARIANTS=minilm/int8:b2:t1:s2,bge-small/int8:b2:t1:s2 BENCH_SCIFACT_MODELS=minilm,bge-small ...
 * A variant is [model/]precision:bN:tN[:sN][:ungrouped] (LOCAL_EMBEDDER model, default minilm; batch
 * size, intra-op threads per session, sessions embedding batches at once (default 1), no length
 * grouping). BENCH_SCIFACT_MODELS and BENCH_SCIFACT_PRECISIONS (default minilm; int8,fp32) pick the
 * SciFact runs.
 * Writes bench/embedder/results.json and prints a Markdown table. */
import { Tokenizer } from '@huggingface/tokenizers';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { docqaCacheDir } from '@docqa/common';
import { chunkPages } from '@docqa/indexing/chunking/chunker';
import {
  defaultLocalModelDir,
  EmbedderPrecision,
  EmbedderStats,
  LOCAL_EMBEDDER_MODELS,
  LocalEmbedderModel,
  OnnxEmbedder,
} from '@docqa/embeddings';
import { EmbeddedSearchIndex, SearchMode } from '@docqa/search';
import { loadSciFact, ndcgAt } from '../search/corpus';

const ROOT = path.resolve(__dirname, '../../../..');
const SHARED = process.env.BENCH_SHARED ?? path.join(ROOT, '../shared');
/** LOCAL_EMBEDDER_MODEL_DIR overrides the directory of every variant's model (one model then). */
const modelDir = (model: LocalEmbedderModel) =>
  process.env.LOCAL_EMBEDDER_MODEL_DIR ?? defaultLocalModelDir(undefined, model);
const MODEL_DIR = modelDir('minilm');
const VARIANTS = (
  process.env.BENCH_VARIANTS ?? 'fp32:b8:t2,int8:b8:t2,int8:b8:t2:ungrouped,int8:b16:t2,int8:b8:t1'
)
  .split(',')
  .map((v) => v.trim());
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Texts per measured set (a sample keeps a round short on a loaded machine). */
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 256);
const log = (s: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}`);

interface Variant {
  name: string;
  model: LocalEmbedderModel;
  precision: EmbedderPrecision;
  batchSize: number;
  threads: number;
  sessions: number;
  groupByLength: boolean;
}

function parseVariant(name: string): Variant {
  const slash = name.indexOf('/');
  const model = (slash < 0 ? 'minilm' : name.slice(0, slash)) as LocalEmbedderModel;
  if (!(model in LOCAL_EMBEDDER_MODELS))
    throw new Error(`bad model in ${name} (${Object.keys(LOCAL_EMBEDDER_MODELS).join(', ')})`);
  const [precision, b, t, ...flags] = name.slice(slash + 1).split(':');
  const sessions = flags.find((f) => /^s\d+$/.test(f));
  const unknown = flags.filter((f) => f !== sessions && f !== 'ungrouped');
  if (
    (precision !== 'fp32' && precision !== 'int8') ||
    !/^b\d+$/.test(b) ||
    !/^t\d+$/.test(t) ||
    unknown.length
  )
    throw new Error(`bad variant ${name} (precision:bN:tN[:sN][:ungrouped])`);
  return {
    name,
    model,
    precision,
    batchSize: Number(b.slice(1)),
    threads: Number(t.slice(1)),
    sessions: sessions ? Number(sessions.slice(1)) : 1,
    groupByLength: !flags.includes('ungrouped'),
  };
}

/** Pages of the dev corpus (unpdf, as indexing extracts them), cached: extraction takes a while. */
async function devPages(): Promise<Array<{ file: string; pages: string[] }>> {
  const dir = path.join(SHARED, 'corpus/dev');
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.pdf'))
    .sort();
  const key = files.map((f) => `${f}:${fs.statSync(path.join(dir, f)).size}`).join(',');
  const cache = path.join(docqaCacheDir(), 'bench', 'dev-pages.json');
  if (fs.existsSync(cache)) {
    const c = JSON.parse(fs.readFileSync(cache, 'utf8'));
    if (c.key === key) return c.docs;
  }
  const { extractText, getDocumentProxy } = await import('unpdf');
  const docs: Array<{ file: string; pages: string[] }> = [];
  for (const f of files) {
    const pdf = await getDocumentProxy(new Uint8Array(fs.readFileSync(path.join(dir, f))));
    const { text } = await extractText(pdf, { mergePages: false });
    docs.push({ file: f, pages: text as string[] });
  }
  fs.mkdirSync(path.dirname(cache), { recursive: true });
  fs.writeFileSync(cache, JSON.stringify({ key, docs }));
  return docs;
}

/**
 * Vectors of `texts`, cached per graph file (its sha256 in the manifest) and text list under
 * DOCQA_CACHE_DIR/bench/vectors: SciFact's 5,183 abstracts take minutes on a loaded machine.
 */
async function embedCached(e: OnnxEmbedder, texts: string[]): Promise<number[][]> {
  const graph = e.manifest.files[e.modelFile as 'model.onnx']?.sha256 ?? e.modelFile;
  const key = createHash('sha256').update(graph).update(JSON.stringify(texts)).digest('hex').slice(0, 32);
  const file = path.join(docqaCacheDir(), 'bench', 'vectors', `${e.modelName}-${key}.f32`);
  const D = e.dimensions;
  if (fs.existsSync(file)) {
    const buf = fs.readFileSync(file);
    const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    if (all.length === texts.length * D)
      return texts.map((_, i) => Array.from(all.subarray(i * D, (i + 1) * D)));
  }
  const t0 = Date.now();
  const vectors = await e.embedDocuments(texts);
  log(`${e.modelFile}: ${texts.length} texts embedded in ${Date.now() - t0} ms`);
  const all = new Float32Array(texts.length * D);
  vectors.forEach((v, i) => all.set(v, i * D));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, Buffer.from(all.buffer));
  fs.renameSync(`${file}.tmp`, file);
  return vectors;
}

/** Every k-th item, so a sample keeps the whole set's length distribution. */
function spread<T>(xs: T[], n: number): T[] {
  if (xs.length <= n) return xs;
  return Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]);
}

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

interface Measure {
  chunksPerSec: number;
  chunksPerCpuSec: number;
  tokensPerText: number;
  paddingShare: number;
  tokenizeShare: number;
  vectors: number[][];
}

/**
 * Embeds `texts` as indexing does (concurrent documents of `perCall` texts each, all queued at
 * once), timing wall clock and this process's CPU (main and inference threads).
 */
async function measure(e: OnnxEmbedder, texts: string[], perCall = 96): Promise<Measure> {
  const before: EmbedderStats = e.stats();
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const calls: Array<Promise<number[][]>> = [];
  for (let i = 0; i < texts.length; i += perCall) calls.push(e.embedDocuments(texts.slice(i, i + perCall)));
  const vectors = (await Promise.all(calls)).flat();
  const sec = Number(process.hrtime.bigint() - t0) / 1e9;
  const cu = process.cpuUsage(c0);
  const after = e.stats();
  const d = (k: keyof EmbedderStats) => after[k] - before[k];
  return {
    chunksPerSec: texts.length / sec,
    chunksPerCpuSec: texts.length / ((cu.user + cu.system) / 1e6),
    tokensPerText: d('tokens') / d('texts'),
    paddingShare: 1 - d('tokens') / d('paddedTokens'),
    tokenizeShare: d('tokenizeMs') / (d('tokenizeMs') + d('inferMs')),
    vectors,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const r1 = (x: number) => Math.round(x * 10) / 10;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * BENCH_SCIFACT_DOCS=N: every abstract judged for a test query plus evenly spread others, N in all
 * (the full 5,183 take over an hour per precision on a loaded 2-core machine). nDCG@10 on a subset
 * is higher than on the full set; the fp32/int8 difference is what it is measured for.
 */
function scifactSubset(sci: ReturnType<typeof loadSciFact>): ReturnType<typeof loadSciFact> {
  const n = Number(process.env.BENCH_SCIFACT_DOCS ?? 0);
  if (!n || n >= sci.docs.length) return sci;
  const judged = new Set([...sci.qrels.values()].flatMap((m) => [...m.keys()]));
  const others = sci.docs.filter((d) => !judged.has(d.id));
  const docs = [...sci.docs.filter((d) => judged.has(d.id)), ...spread(others, Math.max(0, n - judged.size))];
  log(`scifact subset: ${docs.length} of ${sci.docs.length} abstracts (${judged.size} judged)`);
  return { ...sci, docs };
}

async function scifact(
  model: LocalEmbedderModel,
  precision: EmbedderPrecision,
): Promise<Record<string, number>> {
  const sci = scifactSubset(loadSciFact(path.join(SHARED, 'benchmarks/scifact')));
  const e = await OnnxEmbedder.load({ dir: modelDir(model), precision, threads: 2, batchSize: 8 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-embedder-'));
  const index = new EmbeddedSearchIndex({ dir, space: e });
  try {
    const vectors = await embedCached(
      e,
      sci.docs.map((d) => d.text),
    );
    for (let i = 0; i < sci.docs.length; i += 1000)
      await index.upsert(
        sci.docs.slice(i, i + 1000).map((d, j) => ({
          accountId: 1,
          docSetName: 'scifact',
          documentId: d.id,
          fileName: `${d.id}.txt`,
          pageNumber: '1',
          sourceType: 'S3',
          sourceId: d.id,
          chunkIndex: 0,
          text: d.text,
          embedding: vectors[i + j],
        })),
      );
    await index.optimize();
    const out: Record<string, number> = {};
    const queryVectors = await Promise.all(sci.queries.map((q) => e.embedQuery(q.text)));
    for (const mode of ['vector', 'hybrid'] as SearchMode[]) {
      let sum = 0;
      for (let i = 0; i < sci.queries.length; i++) {
        const hits = await index.search({
          accountId: 1,
          docSetNames: ['scifact'],
          text: sci.queries[i].text,
          vector: queryVectors[i],
          limit: 10,
          minimumSimilarityScore: 0,
          mode,
        });
        sum += ndcgAt(
          10,
          hits.map((h) => h.chunk.documentId),
          sci.qrels.get(sci.queries[i].id)!,
        );
      }
      out[mode] = Math.round((sum / sci.queries.length) * 10_000) / 10_000;
    }
    log(
      `scifact ${model} ${precision}: nDCG@10 ${JSON.stringify(out)} (load ${os.loadavg().map(r1).join(' ')})`,
    );
    return out;
  } finally {
    await index.close();
    await e.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const load = () => os.loadavg().map(r1);
  const loadStart = load();
  const docs = await devPages();
  const chunks = docs.flatMap((d) => chunkPages(d.pages.map((text, i) => ({ pageNumber: i + 1, text }))));
  const tok = new Tokenizer(
    JSON.parse(fs.readFileSync(path.join(MODEL_DIR, 'tokenizer.json'), 'utf8')),
    JSON.parse(fs.readFileSync(path.join(MODEL_DIR, 'tokenizer_config.json'), 'utf8')),
  );
  const full = chunks.filter((c) => tok.encode(c.text).ids.length >= 256).map((c) => c.text);
  const sets: Record<string, string[]> = {
    // the aim's unit: chunks that fill the model's 256-token window
    '256-token chunks': spread(full, SAMPLE),
    // the corpus as indexing sees it: short page tails and short pages included
    'dev corpus chunks': spread(
      chunks.map((c) => c.text),
      SAMPLE,
    ),
  };
  log(
    `dev corpus: ${chunks.length} chunks, ${full.length} of 256 tokens; sets of ${SAMPLE}; load ${loadStart.join(' ')}`,
  );

  const variants = VARIANTS.filter(Boolean).map(parseVariant);
  const runs: Record<string, Record<string, Measure[]>> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const v of variants) {
      const e = await OnnxEmbedder.load({
        dir: modelDir(v.model),
        precision: v.precision,
        threads: v.threads,
        sessions: v.sessions,
        batchSize: v.batchSize,
        groupByLength: v.groupByLength,
      });
      try {
        await e.embedDocuments(sets['256-token chunks'].slice(0, v.batchSize)); // warm-up
        for (const [name, texts] of Object.entries(sets)) {
          const m = await measure(e, texts);
          ((runs[v.name] ??= {})[name] ??= []).push(m);
          log(
            `round ${round + 1} ${v.name} ${name}: ${r1(m.chunksPerSec)} chunks/s, ${r1(m.chunksPerCpuSec)} per CPU-s (load ${os.loadavg()[0].toFixed(1)})`,
          );
        }
      } finally {
        await e.close();
      }
    }
  }

  // Distance to fp32: the first fp32 variant of the same model is the reference.
  const table: Array<Record<string, unknown>> = [];
  for (const v of variants) {
    const ref = variants.find((r) => r.precision === 'fp32' && r.model === v.model);
    for (const name of Object.keys(sets)) {
      const ms = runs[v.name][name];
      let minCos: number | undefined;
      let meanCos: number | undefined;
      if (ref) {
        const base = runs[ref.name][name][0].vectors;
        const cos = ms[0].vectors.map((x, i) => dot(x, base[i]));
        minCos = Math.min(...cos);
        meanCos = cos.reduce((s, c) => s + c, 0) / cos.length;
      }
      table.push({
        variant: v.name,
        set: name,
        chunksPerSec: r1(median(ms.map((m) => m.chunksPerSec))),
        bestChunksPerSec: r1(Math.max(...ms.map((m) => m.chunksPerSec))),
        chunksPerCpuSec: r1(median(ms.map((m) => m.chunksPerCpuSec))),
        tokensPerText: r1(ms[0].tokensPerText),
        paddingShare: r3(ms[0].paddingShare),
        tokenizeShare: r3(ms[0].tokenizeShare),
        minCosToFp32: minCos === undefined ? null : Math.round(minCos * 1e5) / 1e5,
        meanCosToFp32: meanCos === undefined ? null : Math.round(meanCos * 1e5) / 1e5,
      });
    }
  }
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} cores (${os.cpus()[0]?.model}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    loadAverage: { start: loadStart, end: load() },
    rounds: ROUNDS,
    sample: SAMPLE,
    table,
  };
  const out = process.env.BENCH_OUT ?? path.join(ROOT, 'bench/embedder/results.json');
  const write = () => fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  if (process.env.BENCH_SCIFACT === '1') {
    // one precision after the other, each written as soon as it is known (a run takes long)
    const ndcg: Record<string, Record<string, number>> = {};
    results.scifactNdcg10 = ndcg;
    results.scifactDocs = Number(process.env.BENCH_SCIFACT_DOCS ?? 0) || 'all';
    const models = (process.env.BENCH_SCIFACT_MODELS ?? 'minilm').split(',') as LocalEmbedderModel[];
    const precisions = (process.env.BENCH_SCIFACT_PRECISIONS ?? 'int8,fp32').split(
      ',',
    ) as EmbedderPrecision[];
    for (const precision of precisions)
      for (const model of models) {
        // the first model keeps the key it always had (`int8`, `fp32`): results files stay comparable
        ndcg[model === models[0] && model === 'minilm' ? precision : `${model}/${precision}`] = await scifact(
          model,
          precision,
        );
        results.loadAverage = { start: loadStart, end: load() };
        write();
      }
  }
  write();
  log(`wrote ${out}`);
  if (table.length) {
    const cols = Object.keys(table[0]);
    console.log(`| ${cols.join(' | ')} |\n|${cols.map(() => '---').join('|')}|`);
    for (const row of table) console.log(`| ${cols.map((c) => String(row[c])).join(' | ')} |`);
  }
  if (results.scifactNdcg10) console.log(JSON.stringify(results.scifactNdcg10));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
