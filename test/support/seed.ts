import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { embeddingSpaceKey } from '@docqa/common';
import type { DocumentStatus, SourceType } from '@docqa/db';
import { contextFields, PdfExtractor, prepareDocument } from '@docqa/indexing';
import { EMBEDDER, Embedder } from '@docqa/embeddings';
import { ChunkRecord, hasMaintenance, SEARCH_INDEX, SearchIndex } from '@docqa/search';
import type { TestApp } from './app';
import { sharedDir } from './infra';

/**
 * Test data without the indexing pipeline: rows in documents/document_pages and chunks upserted
 * through the app's own SearchIndex port with its own embedder (what indexing would have written).
 * At least one suite per feature still goes through the real pipeline (test/ask/pipeline).
 */

export interface SeedDocument {
  docSetName: string;
  fileName: string;
  /** Text of each physical page, page 1 first. */
  pages: string[];
  /** Metadata title (as a PDF's Title), when the file has one. */
  title?: string | null;
  status?: DocumentStatus;
  sourceType?: SourceType;
  sourceId?: string;
  fileType?: string;
  summary?: string | null;
  sizeBytes?: number;
  createdAt?: Date;
}

export interface SeededDocument {
  id: string;
  docSetName: string;
  fileName: string;
  status: DocumentStatus;
  chunks: number;
}

export async function pgOf(app: TestApp): Promise<Client> {
  const c = new Client({ connectionString: app.cfg.database.url });
  await c.connect();
  return c;
}

/** The account of an API token (by its id, as POST /users returns it). */
export async function accountIdOfToken(app: TestApp, tokenId: number): Promise<number> {
  const db = await pgOf(app);
  try {
    const { rows } = await db.query('SELECT account_id FROM api_tokens WHERE id = $1', [tokenId]);
    return Number(rows[0].account_id);
  } finally {
    await db.end();
  }
}

export function searchIndexOf(app: TestApp): SearchIndex {
  return app.api.app.get<SearchIndex>(SEARCH_INDEX);
}

export async function seedDocuments(
  app: TestApp,
  accountId: number,
  docs: SeedDocument[],
): Promise<SeededDocument[]> {
  const db = await pgOf(app);
  const index = searchIndexOf(app);
  const embedder = app.api.app.get<Embedder>(EMBEDDER);
  const out: SeededDocument[] = [];
  try {
    for (const d of docs) {
      const id = randomUUID();
      const status = d.status ?? 'COMPLETE';
      const sourceType = d.sourceType ?? 'S3';
      const sourceId = d.sourceId ?? `bucket/${d.docSetName}/${d.fileName}`;
      const complete = status === 'COMPLETE';
      const { context, chunks } = complete
        ? prepareDocument({
            fileName: d.fileName,
            title: d.title,
            pages: d.pages.map((text, i) => ({ pageNumber: i + 1, text })),
          })
        : { context: undefined, chunks: [] };
      const created = d.createdAt ?? new Date();
      await db.query(
        `INSERT INTO documents (id, account_id, docset_name, file_name, source_type, source_id, source_path, status,
           file_type, size_bytes, page_count, chunk_count, summary, indexed_at, created_at, updated_at, content_hash,
           embedding_space, served_generation, served_chunk_count, title)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$15,$16,$17,$18,$12,$19)`,
        [
          id,
          accountId,
          d.docSetName,
          d.fileName,
          sourceType,
          sourceId,
          `${d.docSetName}/${d.fileName}`,
          status,
          d.fileType ?? path.extname(d.fileName).slice(1).toLowerCase(),
          d.sizeBytes ?? d.pages.join('').length,
          complete ? d.pages.length : null,
          complete ? chunks.length : null,
          d.summary ?? null,
          complete ? created : null,
          created,
          createHash('sha256').update(d.pages.join('\f')).digest('hex'),
          complete ? embeddingSpaceKey(embedder) : null,
          complete ? 0 : null, // a COMPLETE document's chunks (generation 0) are served
          d.title ?? null,
        ],
      );
      if (complete) {
        for (let p = 0; p < d.pages.length; p++) {
          await db.query('INSERT INTO document_pages (document_id, page_number, text) VALUES ($1, $2, $3)', [
            id,
            p + 1,
            d.pages[p].split('\u0000').join(''),
          ]);
        }
        for (let i = 0; i < chunks.length; i += 256) {
          const batch = chunks.slice(i, i + 256);
          const vectors = await embedder.embedDocuments(batch.map((c) => c.embeddingText));
          const records: ChunkRecord[] = batch.map((c, j) => ({
            accountId,
            docSetName: d.docSetName,
            documentId: id,
            fileName: d.fileName,
            pageNumber: String(c.pageNumber),
            sourceType,
            sourceId,
            chunkIndex: c.chunkIndex,
            text: c.text,
            ...(context ? contextFields(context, c) : {}),
            embedding: vectors[j],
          }));
          await index.upsert(records);
        }
      }
      out.push({ id, docSetName: d.docSetName, fileName: d.fileName, status, chunks: chunks.length });
    }
    // As a finished indexing run does: searches rank on a settled index, not on one whose newest
    // rows still wait for the embedded engine's maintenance (SearchMaintenance.settle).
    if (hasMaintenance(index)) await index.settle();
  } finally {
    await db.end();
  }
  return out;
}

export const CORPUS_DIR = sharedDir('corpus', 'dev');

let extractor: PdfExtractor | undefined;

/**
 * Page texts and metadata title of a corpus PDF (the dev corpus unless `dir` names another),
 * extracted like indexing does (unpdf in a worker thread) and cached in the temp dir by file size
 * and time, so suites do not parse the same PDF again.
 */
export async function corpusContent(
  fileName: string,
  dir = CORPUS_DIR,
): Promise<{ pages: string[]; title: string | null }> {
  const file = path.join(dir, fileName);
  const st = fs.statSync(file);
  const cacheDir = path.join(os.tmpdir(), 'docqa-corpus-pages');
  const cache = path.join(
    cacheDir,
    `${path.basename(dir)}-${fileName}.${st.size}.${Math.floor(st.mtimeMs)}.v2.json`,
  );
  if (fs.existsSync(cache)) return JSON.parse(fs.readFileSync(cache, 'utf8'));
  extractor ??= new PdfExtractor({ threads: 1 });
  const content = await extractor.extractContent(fs.readFileSync(file));
  fs.mkdirSync(cacheDir, { recursive: true });
  fs.writeFileSync(`${cache}.tmp`, JSON.stringify(content));
  fs.renameSync(`${cache}.tmp`, cache);
  return content;
}

/** Page texts of a corpus PDF (see corpusContent). */
export async function corpusPages(fileName: string, dir = CORPUS_DIR): Promise<string[]> {
  return (await corpusContent(fileName, dir)).pages;
}

/** Stops the extraction thread (call in afterAll of suites that used corpusPages). */
export async function closeCorpusExtractor(): Promise<void> {
  await extractor?.onModuleDestroy();
  extractor = undefined;
}

/** Seeds corpus PDFs (COMPLETE; the dev corpus unless `dir` names another) into one docset. */
export async function seedCorpus(
  app: TestApp,
  accountId: number,
  docSetName: string,
  files: string[],
  dir = CORPUS_DIR,
): Promise<SeededDocument[]> {
  const docs: SeedDocument[] = [];
  for (const fileName of files) docs.push({ docSetName, fileName, ...(await corpusContent(fileName, dir)) });
  return seedDocuments(app, accountId, docs);
}

export interface DevQaItem {
  id: string;
  question: string;
  answer: string;
  fileName: string;
  page: number;
  kind: string;
  alsoOnPages?: number[];
  pastMessages?: Array<{ role: 'user' | 'assistant'; content: string }>;
}

export function devQa(): DevQaItem[] {
  return fs
    .readFileSync(path.join(CORPUS_DIR, 'qa.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as DevQaItem);
}

export function qaItem(id: string): DevQaItem {
  const item = devQa().find((q) => q.id === id);
  if (!item) throw new Error(`no QA item ${id}`);
  return item;
}
