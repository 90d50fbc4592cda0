import * as fs from 'node:fs';
import * as path from 'node:path';

/** A page-aware chunk before embedding. */
export interface RawChunk {
  documentId: string;
  fileName: string;
  pageNumber: string;
  chunkIndex: number;
  text: string;
}

/**
 * Page-aware chunking: words of one page are cut into windows of `size` words overlapping by
 * `overlap`; a chunk never spans two pages, so its page number is exact for citations.
 */
export function chunkPages(
  documentId: string,
  fileName: string,
  pages: string[],
  size = 200,
  overlap = 40,
): RawChunk[] {
  const out: RawChunk[] = [];
  pages.forEach((page, p) => {
    const words = page.split(/\s+/).filter(Boolean);
    if (words.length === 0) return;
    for (let start = 0; start < words.length; start += size - overlap) {
      out.push({
        documentId,
        fileName,
        pageNumber: String(p + 1),
        chunkIndex: out.length,
        text: words.slice(start, start + size).join(' '),
      });
      if (start + size >= words.length) break;
    }
  });
  return out;
}

/** Extracts every PDF of the dev corpus page by page with unpdf and chunks it. */
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
    chunks.push(...chunkPages(`dev-${f}`, f, text as string[]));
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
  docs: Array<{ id: string; text: string }>;
  queries: Array<{ id: string; text: string }>;
  /** query id -> doc id -> relevance */
  qrels: Map<string, Map<string, number>>;
}

export function loadSciFact(dir: string): SciFact {
  const docs = fs
    .readFileSync(path.join(dir, 'corpus.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const d = JSON.parse(l) as { _id: string; title: string; text: string };
      return { id: d._id, text: `${d.title}\n${d.text}` };
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
