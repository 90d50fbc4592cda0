// The search benchmark's settings (environment variables, see run.ts), its log and the product's
// embedder as the benchmark loads it.
import * as os from 'node:os';
import * as path from 'node:path';
import {
  defaultLocalModelDir,
  LOCAL_EMBEDDER_SESSIONS,
  LOCAL_EMBEDDER_THREADS,
  OnnxEmbedder,
} from '@docqa/embeddings';
import { SearchMode } from '@docqa/search';
import { EMBEDDER_PRECISION } from './corpus';

export const ROOT = path.resolve(__dirname, '../../../..');
export const SHARED = process.env.BENCH_SHARED ?? path.resolve(ROOT, '../shared');
export const SYNTHETIC = Number(process.env.BENCH_SYNTHETIC ?? 20_000);
export const ENGINES = (process.env.BENCH_ENGINES ?? 'elasticsearch,embedded').split(',');
export const MAIN_EMBEDDER = process.env.BENCH_EMBEDDER ?? 'minilm';
export const COMPARE_HASHING = MAIN_EMBEDDER !== 'hashing' && process.env.BENCH_COMPARE_HASHING !== '0';
const MODEL_DIR = process.env.LOCAL_EMBEDDER_MODEL_DIR ?? defaultLocalModelDir();
// as the product runs them (libs/embeddings tuning)
export const SESSIONS = LOCAL_EMBEDDER_SESSIONS;
export const THREADS = LOCAL_EMBEDDER_THREADS;
/** Chunks timed per batch size in the throughput pass (dev-corpus chunks, production chunker). */
export const THROUGHPUT_SAMPLE = Number(process.env.BENCH_THROUGHPUT_SAMPLE ?? 512);
/** Vectors of the synthetic latency set: `random` (default with the ONNX model) or `model`. */
export const SYNTHETIC_VECTORS =
  process.env.BENCH_SYNTHETIC_VECTORS ?? (MAIN_EMBEDDER === 'hashing' ? 'model' : 'random');
export const MODES: SearchMode[] = ['bm25', 'vector', 'hybrid'];

export const log = (s: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}`);
export const loadAvg = () => os.loadavg().map((x) => +x.toFixed(2));

/** The ONNX embedder at the product's precision, sessions and threads, with `batchSize`. */
export const loadOnnxEmbedder = (batchSize: number) =>
  OnnxEmbedder.load({
    dir: MODEL_DIR,
    precision: EMBEDDER_PRECISION,
    sessions: SESSIONS,
    threads: THREADS,
    batchSize,
  });
