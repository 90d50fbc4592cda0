import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { docqaCacheDir, loadConfig } from '@docqa/common';
import { chunkPages } from '@docqa/indexing/chunking/chunker';
import { contextFields, prepareDocument } from '@docqa/indexing/chunking/document-chunks';
import { Embedder, LocalHashingEmbedder } from '@docqa/embeddings';

/** A page-aware chunk before embedding. */
export interface RawChunk {
  documentId: string;
  fileName: string;
  pageNumber: string;
  chunkIndex: number;
  text: string;
  /** With the document's context (BENCH_CONTEXT, the default): what is embedded instead of `text`. */
  embeddingText?: string;
  documentTitle?: string;
  documentTerms?: string;
  section?: string;
}

/**
 * Whether chunks carry their document's context as indexing writes them (file name, title, names,
 * section: searchable fields and the embedded text; libs/indexing prepareDocument). On by default,
 * so the bench measures what the product indexes; BENCH_CONTEXT=0 gives the bare chunk text.
 */
export const WITH_CONTEXT = process.env.BENCH_CONTEXT !== '0';

/**
 * The embedder graph the product would run here: LOCAL_EMBEDDER_PRECISION through the product's own
 * configuration (default `auto`: int8 on CPUs with integer dot products).
 */
export const EMBEDDER_PRECISION = loadConfig().models.localEmbedderPrecision;

/**
 * Pages through the production chunker (libs/indexing: ~1,200 characters, 240 overlap, per page),
 * with the document's context when WITH_CONTEXT.
 */
export function productionChunks(
  documentId: string,
  fileName: string,
  pages: string[],
  title?: string,
): RawChunk[] {
  if (WITH_CONTEXT) {
    const { context, chunks } = prepareDocument({
      fileName,
      title,
      pages: pages.map((text, i) => ({ pageNumber: i + 1, text })),
    });
    return chunks.map((c) => ({
      documentId,
      fileName,
      pageNumber: String(c.pageNumber),
      chunkIndex: c.chunkIndex,
      text: c.text,
      embeddingText: c.embeddingText,
      ...contextFields(context, c),
    }));
  }
  return chunkPages(pages.map((text, i) => ({ pageNumber: i + 1, text }))).map((c) => ({
    documentId,
    fileName,
    pageNumber: String(c.pageNumber),
    chunkIndex: c.chunkIndex,
    text: c.text,
  }));
}

/** Extracts every PDF of the dev corpus page by page with unpdf and chunks it like indexing does. */
export async function loadDevCorpus(dir: string): Promise<RawChunk[]> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.pdf'))
    .sort();
  const chunks: RawChunk[] = [];
  for (const f of files) {
    const pdf = await getDocumentProxy(new Uint8Array(fs.readFileSync(path.join(dir, f))));
    const { text } = await extractText(pdf, { mergePages: false });
    chunks.push(...productionChunks(`dev-${f}`, f, text as string[]));
  }
  return chunks;
}

export interface QaItem {
  id: string;
  question: string;
  fileName: string;
  page: number;
  alsoOnPages?: number[];
  kind: string;
}

export function loadQa(file: string): QaItem[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as QaItem)
    .filter((q) => q.kind !== 'unanswerable');
}

export interface SciFact {
  /** text: title and abstract as one page; title also as the document's metadata title */
  docs: Array<{ id: string; title: string; text: string }>;
  queries: Array<{ id: string; text: string }>;
  /** query id -> doc id -> relevance */
  qrels: Map<string, Map<string, number>>;
}

/** SciFact abstracts (title + text as one page) through the production chunker. */
export function sciFactChunks(sci: SciFact): RawChunk[] {
  return sci.docs.flatMap((d) => productionChunks(d.id, `${d.id}.txt`, [d.text], d.title));
}

/** Ranked chunk hits -> ranked distinct documents (a document ranks where its best chunk does). */
export function distinctDocuments(documentIds: string[], k: number): string[] {
  return [...new Set(documentIds)].slice(0, k);
}

export function loadSciFact(dir: string): SciFact {
  const docs = fs
    .readFileSync(path.join(dir, 'corpus.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const d = JSON.parse(l) as { _id: string; title: string; text: string };
      return { id: d._id, title: d.title, text: `${d.title}\n${d.text}` };
    });
  const qrels = new Map<string, Map<string, number>>();
  for (const line of fs.readFileSync(path.join(dir, 'qrels.test.txt'), 'utf8').split('\n')) {
    const [qid, , did, rel] = line.trim().split(/\s+/);
    if (!qid || !did || qid === 'query-id') continue;
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    qrels.get(qid)!.set(did, Number(rel));
  }
  const queries = fs
    .readFileSync(path.join(dir, 'queries.test.tsv'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const i = l.indexOf('\t');
      return { id: l.slice(0, i), text: l.slice(i + 1) };
    })
    .filter((q) => qrels.has(q.id));
  return { docs, queries, qrels };
}

/** nDCG@k with graded relevance (BEIR/trec_eval definition, linear gain). */
export function ndcgAt(k: number, ranked: string[], rels: Map<string, number>): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    const r = rels.get(id) ?? 0;
    if (r > 0) dcg += r / Math.log2(i + 2);
  });
  const ideal = [...rels.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((s, r, i) => s + r / Math.log2(i + 2), 0);
  return idcg ? dcg / idcg : 0;
}

/** Deterministic synthetic chunks: Zipf-distributed words over a generated vocabulary. */
export function syntheticChunks(n: number, seed = 42): RawChunk[] {
  let s = seed >>> 0;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const syll = [
    'ka',
    'lo',
    'mi',
    'ne',
    'ru',
    'ta',
    'vo',
    'zi',
    'pe',
    'sa',
    'do',
    'fu',
    'gi',
    'ha',
    'ju',
    'be',
  ];
  const vocab = Array.from({ length: 20000 }, (_, i) => {
    let w = '';
    let x = i + 7;
    while (x > 0) {
      w += syll[x % syll.length];
      x = Math.floor(x / syll.length);
    }
    return w;
  });
  // Zipf via inverse CDF approximation: rank ~ exp(u * ln(V))
  const word = () =>
    vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(rnd() * Math.log(vocab.length))) - 1)];
  return Array.from({ length: n }, (_, i) => ({
    documentId: `syn-${Math.floor(i / 50)}`,
    fileName: `synthetic-${Math.floor(i / 50)}.pdf`,
    pageNumber: String((i % 50) + 1),
    chunkIndex: i % 50,
    text: Array.from({ length: 60 + Math.floor(rnd() * 60) }, word).join(' '),
  }));
}

export function syntheticQueries(chunks: RawChunk[], n: number, seed = 7): string[] {
  let s = seed >>> 0;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return Array.from({ length: n }, () => {
    const words = chunks[Math.floor(rnd() * chunks.length)].text.split(' ');
    const start = Math.floor(rnd() * Math.max(1, words.length - 3));
    return words.slice(start, start + 3).join(' ');
  });
}

/**
 * Document vectors, cached on disk per model and exact text list (BENCH_EMBED_CACHE, default
 * ~/.cache/docqa/bench-embeddings): re-runs (another engine, a fusion change) skip re-embedding,
 * which takes the local model minutes on 2 cores. The cache holds only what the model returned.
 */
export async function embedCached(e: Embedder, texts: string[]): Promise<number[][]> {
  const dir = process.env.BENCH_EMBED_CACHE ?? path.join(docqaCacheDir(), 'bench-embeddings');
  const key = createHash('sha256').update(JSON.stringify(texts)).digest('hex').slice(0, 32);
  const file = path.join(dir, `${e.modelName}-${e.dimensions}-${key}.f32`);
  const D = e.dimensions;
  if (fs.existsSync(file)) {
    const buf = fs.readFileSync(file);
    const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    if (all.length === texts.length * D) {
      console.error(`[bench] ${e.modelName}: ${texts.length} vectors from ${file}`);
      return texts.map((_, i) => Array.from(all.subarray(i * D, (i + 1) * D)));
    }
  }
  const vectors = await e.embedDocuments(texts);
  if (!(e instanceof LocalHashingEmbedder)) {
    fs.mkdirSync(dir, { recursive: true });
    const all = new Float32Array(texts.length * D);
    vectors.forEach((v, i) => all.set(v, i * D));
    fs.writeFileSync(`${file}.tmp`, Buffer.from(all.buffer));
    fs.renameSync(`${file}.tmp`, file);
  }
  return vectors;
}

/** The embedder seen through embedQuery (one text per call, as a question is embedded). */
export function queryEmbedder(e: Embedder): Embedder {
  return Object.assign(Object.create(e) as Embedder, {
    modelName: `${e.modelName}-query`,
    embedDocuments: (texts: string[]) => Promise.all(texts.map((t) => e.embedQuery(t))),
  });
}
