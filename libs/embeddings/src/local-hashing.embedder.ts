import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { lightStem, words as wordsOf } from '@docqa/text';
import type { Embedder, EmbedOptions } from './embedder.port';

/** Texts embedded between two yields to the event loop (a chunk takes 1-3 ms). */
const YIELD_EVERY = 8;

/** Words that carry little meaning in English; they get a tenth of a word's weight. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be but by for from has have he her his i if in into is it its me my no not of on or ' +
    'our she so than that the their them then there these they this those to was we were what when where ' +
    'which who whom why will with would you your can do does did how all any'
  ).split(' '),
);

/** 32-bit FNV-1a over UTF-16 code units, then a murmur3 finaliser for better bit mixing. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export interface LocalHashingEmbedderOptions {
  /** Vector length; default 768. */
  dimensions?: number;
  /** Why this embedder stands in for the semantic model (see Embedder.warning). */
  warning?: string;
}

/**
 * Deterministic local embedder (no model, no network): signed feature hashing of words, light stems,
 * word bigrams and character 3- and 4-grams of each word, with sublinear term frequency, then L2
 * normalisation. Cosine similarity then measures word and sub-word overlap, which is what lets the
 * vector leg match misspellings ("geomtry") and word forms ("margins"/"margin") that BM25 misses.
 */
export class LocalHashingEmbedder implements Embedder {
  readonly dimensions: number;
  readonly modelName: string;
  readonly recommendedVectorWeight = 0.3;
  readonly warning?: string;

  constructor(o: LocalHashingEmbedderOptions = {}) {
    this.warning = o.warning;
    this.dimensions = o.dimensions ?? 768;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 16 || this.dimensions > 4096) {
      throw new RangeError('dimensions must be an integer 16-4096');
    }
    this.modelName = 'docqa-local-hash-v1';
  }

  /**
   * Yields to the event loop every YIELD_EVERY texts: it runs on the thread that answers requests,
   * and a batch of 96 chunks in one go held that loop for a few hundred ms (the soak's profile).
   */
  async embedDocuments(texts: string[], o: EmbedOptions = {}): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i++) {
      if (i % YIELD_EVERY === 0) {
        if (i > 0) await yieldToLoop();
        o.signal?.throwIfAborted();
      }
      out.push(this.embed(texts[i]));
    }
    o.signal?.throwIfAborted();
    return out;
  }

  async embedQuery(text: string, o: EmbedOptions = {}): Promise<number[]> {
    o.signal?.throwIfAborted();
    return this.embed(text);
  }

  /** Synchronous core, exported for benchmarks and tests. */
  embed(text: string): number[] {
    const features = new Map<string, number>();
    const add = (f: string, w: number) => features.set(f, (features.get(f) ?? 0) + w);
    // Letters/digits runs; CJK and other scripts without spaces fall back to character n-grams.
    const words = wordsOf(text);
    let prev: string | undefined;
    for (const w of words) {
      const weight = STOP_WORDS.has(w) ? 0.1 : 1;
      add(`w:${w}`, weight);
      const stem = lightStem(w);
      add(`s:${stem}`, 0.5 * weight);
      if (weight === 1) {
        const padded = `<${w}>`;
        const grams: string[] = [];
        for (const n of [3, 4]) {
          for (let i = 0; i + n <= padded.length; i++) grams.push(padded.slice(i, i + n));
        }
        // a word's n-grams together outweigh the word itself, so misspellings stay close
        const gw = 1.5 / Math.sqrt(Math.max(grams.length, 1));
        for (const g of grams) add(`c:${g}`, gw);
      }
      if (prev !== undefined) add(`b:${prev} ${w}`, 0.5 * weight);
      prev = w;
    }
    if (features.size === 0) add('empty', 1); // never a zero vector (cosine is undefined on it)
    const v = new Float64Array(this.dimensions);
    for (const [f, tf] of features) {
      const h = hash32(f);
      const sign = h & 1 ? 1 : -1;
      v[(h >>> 1) % this.dimensions] += sign * (1 + Math.log(tf > 1 ? tf : 1)) * Math.min(tf, 1);
    }
    let norm = 0;
    for (let i = 0; i < v.length; i++) norm += v[i] * v[i];
    norm = Math.sqrt(norm) || 1;
    const out = new Array<number>(this.dimensions);
    for (let i = 0; i < v.length; i++) out[i] = v[i] / norm;
    return out;
  }
}
