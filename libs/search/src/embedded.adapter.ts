import * as lancedb from '@lancedb/lancedb';
import { Logger } from '@nestjs/common';
import { Field, FixedSizeList, Float32, Int32, Schema, Utf8 } from 'apache-arrow';
import * as fs from 'node:fs';
import type { EmbeddingSpace } from '@docqa/common';
import { LegHit, runSearch } from './fusion';
import { INDEX_LAYOUT_VERSION, partitionChunks, versionedIndexName } from './index-version';
import { PartialIndexingError } from './search.errors';
import {
  chunkId,
  ChunkRecord,
  generationChunkIds,
  EngineHealth,
  SearchHit,
  SearchIndex,
  SearchIndexStats,
  SearchQuery,
  StoredChunk,
  UpsertResult,
} from './search.port';

export interface EmbeddedSearchIndexOptions {
  /** Directory of the tables (DATA_DIR/search). */
  dir: string;
  space: EmbeddingSpace;
  /** Idle time after the last write before indices are brought up to date (default 2 s). */
  optimizeDelayMs?: number;
}

/** Row layout of the table (snake_case: the engine's SQL filters are case-insensitive). */
interface Row extends Record<string, unknown> {
  id: string;
  account_id: string;
  doc_set_name: string;
  document_id: string;
  file_name: string;
  page_number: string;
  source_type: string;
  source_id: string;
  chunk_index: number;
  text: string;
  vector: number[];
}

const COLUMNS = [
  'id',
  'account_id',
  'doc_set_name',
  'document_id',
  'file_name',
  'page_number',
  'source_type',
  'source_id',
  'chunk_index',
  'text',
];

/** Rows per merge-insert call: bounds memory of one write. */
const WRITE_BATCH = 5000;
/** Chunk ids per delete filter. */
const DELETE_BATCH = 1000;

function schema(dimensions: number): Schema {
  const s = (name: string) => new Field(name, new Utf8(), false);
  return new Schema([
    s('id'),
    s('account_id'),
    s('doc_set_name'),
    s('document_id'),
    s('file_name'),
    s('page_number'),
    s('source_type'),
    s('source_id'),
    new Field('chunk_index', new Int32(), false),
    s('text'),
    new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
  ]);
}

/** SQL string literal for the engine's filter language. */
export function sqlString(v: string): string {
  return `'${v.replace(/'/g, "''")}'`;
}

/** English analysis comparable to Elasticsearch's `english` analyser. */
const FTS_OPTIONS = {
  withPosition: false,
  baseTokenizer: 'simple' as const,
  language: 'English',
  stem: true,
  removeStopWords: true,
  lowercase: true,
  asciiFolding: true,
  maxTokenLength: 64,
};

/** Serialises writes; reads run concurrently against the engine's versioned snapshots. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * Embedded engine: LanceDB tables on disk under DATA_DIR/search (see docs/search-engine.md). One
 * table per layout version and embedding space. BM25 comes from the engine's inverted index
 * (rows not yet indexed are searched by a flat scan, so writes are visible at once); vectors are
 * searched exactly (flat, cosine) with the same account/docset prefilter. One instance per data
 * directory and process: writes go through a mutex, index maintenance runs when writes go idle.
 */
export class EmbeddedSearchIndex implements SearchIndex {
  readonly engine = 'embedded' as const;
  readonly tableName: string;
  private readonly log = new Logger('EmbeddedSearchIndex');
  private readonly writes = new Mutex();
  private db?: Promise<lancedb.Connection>;
  private table?: Promise<lancedb.Table>;
  private ftsReady = false;
  private optimizeTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly o: EmbeddedSearchIndexOptions) {
    fs.mkdirSync(o.dir, { recursive: true });
    this.tableName = versionedIndexName('chunks', o.space).replace(/\./g, '-');
  }

  private open(): Promise<lancedb.Table> {
    if (this.closed) return Promise.reject(new Error('embedded search index is closed'));
    this.table ??= (async () => {
      this.db ??= lancedb.connect(this.o.dir);
      const db = await this.db;
      const t = await db.createEmptyTable(this.tableName, schema(this.o.space.dimensions), {
        existOk: true,
      });
      const indices = await t.listIndices();
      this.ftsReady = indices.some((i) => i.columns.includes('text') && i.indexType === 'FTS');
      return t;
    })().catch((err: unknown) => {
      this.table = undefined;
      throw err;
    });
    return this.table;
  }

  async upsert(chunks: ChunkRecord[]): Promise<UpsertResult> {
    const { valid, failures } = partitionChunks(chunks, this.o.space.dimensions, (c) =>
      chunkId(c.documentId, c.chunkIndex, c.generation),
    );
    let indexed = 0;
    if (valid.length) {
      const t = await this.open();
      await this.writes.run(async () => {
        for (let i = 0; i < valid.length; i += WRITE_BATCH) {
          const rows = valid.slice(i, i + WRITE_BATCH).map(toRow);
          await t.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
          indexed += rows.length;
        }
        if (!this.ftsReady) {
          await t.createIndex('text', { config: lancedb.Index.fts(FTS_OPTIONS), replace: true });
          await t.createIndex('account_id', { config: lancedb.Index.bitmap(), replace: true });
          await t.createIndex('doc_set_name', { config: lancedb.Index.bitmap(), replace: true });
          this.ftsReady = true;
        }
      });
      this.scheduleOptimize();
    }
    if (failures.length) throw new PartialIndexingError(indexed, failures);
    return { indexed };
  }

  deleteByDocument(accountId: string, documentId: string): Promise<number> {
    return this.deleteWhere(accountId, `document_id = ${sqlString(documentId)}`);
  }

  async deleteChunks(
    accountId: string,
    documentId: string,
    generation: number,
    chunkCount: number,
  ): Promise<number> {
    const ids = generationChunkIds(documentId, generation, chunkCount);
    let deleted = 0;
    for (let i = 0; i < ids.length; i += DELETE_BATCH) {
      const list = ids
        .slice(i, i + DELETE_BATCH)
        .map(sqlString)
        .join(', ');
      deleted += await this.deleteWhere(
        accountId,
        `document_id = ${sqlString(documentId)} AND id IN (${list})`,
      );
    }
    return deleted;
  }

  deleteByDocSet(accountId: string, docSetName: string): Promise<number> {
    return this.deleteWhere(accountId, `doc_set_name = ${sqlString(docSetName)}`);
  }

  deleteByAccount(accountId: string): Promise<number> {
    return this.deleteWhere(accountId);
  }

  private async deleteWhere(accountId: string, extra?: string): Promise<number> {
    if (!accountId) throw new RangeError('delete: accountId is required');
    const predicate = `account_id = ${sqlString(accountId)}` + (extra ? ` AND ${extra}` : '');
    const t = await this.open();
    const n = await this.writes.run(async () => {
      const count = await t.countRows(predicate);
      if (count > 0) await t.delete(predicate);
      return count;
    });
    if (n > 0) this.scheduleOptimize();
    return n;
  }

  async search(q: SearchQuery): Promise<SearchHit[]> {
    const t = await this.open();
    return runSearch(
      q,
      { bm25: (query, size) => this.bm25(t, query, size), vector: (query, size) => this.knn(t, query, size) },
      this.o.space.dimensions,
    );
  }

  private scope(q: SearchQuery): string {
    return (
      `account_id = ${sqlString(q.accountId)} AND ` +
      `doc_set_name IN (${q.docSetNames.map(sqlString).join(', ')})`
    );
  }

  private async bm25(t: lancedb.Table, q: SearchQuery, size: number): Promise<LegHit[]> {
    if (!this.ftsReady) return []; // nothing was ever written
    const rows = (await t
      .query()
      .fullTextSearch(q.text, { columns: 'text' })
      .where(this.scope(q))
      .select([...COLUMNS, '_score'])
      .limit(size)
      .toArray()) as Array<Row & { _score: number }>;
    return rows.map((r) => ({ chunk: toChunk(r), score: r._score }));
  }

  private async knn(
    t: lancedb.Table,
    q: SearchQuery & { vector: number[] },
    size: number,
  ): Promise<LegHit[]> {
    const rows = (await t
      .query()
      .nearestTo(q.vector)
      .distanceType('cosine')
      .where(this.scope(q))
      .select([...COLUMNS, '_distance'])
      .limit(size)
      .toArray()) as Array<Row & { _distance: number }>;
    const out: LegHit[] = [];
    for (const r of rows) {
      const similarity = 1 - r._distance;
      if (similarity >= q.minimumSimilarityScore) out.push({ chunk: toChunk(r), score: similarity });
    }
    return out;
  }

  async stats(accountId?: string): Promise<SearchIndexStats> {
    const t = await this.open();
    const chunks = await t.countRows(accountId ? `account_id = ${sqlString(accountId)}` : undefined);
    return {
      engine: this.engine,
      indexName: this.tableName,
      indexVersion: INDEX_LAYOUT_VERSION,
      embeddingModel: this.o.space.modelName,
      dimensions: this.o.space.dimensions,
      chunks,
    };
  }

  /** Merges small write fragments and folds new rows into the indices once writes go idle. */
  private scheduleOptimize(): void {
    if (this.closed) return;
    clearTimeout(this.optimizeTimer);
    this.optimizeTimer = setTimeout(() => {
      this.optimizeTimer = undefined;
      this.optimize().catch((err: Error) => this.log.warn(`index maintenance failed: ${err.message}`));
    }, this.o.optimizeDelayMs ?? 2000);
    this.optimizeTimer.unref();
  }

  /** Compacts files, updates indices with unindexed rows, drops versions older than 10 minutes. */
  async optimize(): Promise<void> {
    const t = await this.open();
    await this.writes.run(() => t.optimize({ cleanupOlderThan: new Date(Date.now() - 10 * 60_000) }));
  }

  async health(): Promise<EngineHealth> {
    try {
      fs.accessSync(this.o.dir, fs.constants.W_OK);
      const t = await this.open();
      if (!t.isOpen()) return { engine: this.engine, up: false, detail: 'table closed' };
      return { engine: this.engine, up: true, detail: `lancedb ${this.tableName}` };
    } catch {
      return { engine: this.engine, up: false, detail: 'embedded search index unavailable' };
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const hadPending = this.optimizeTimer !== undefined;
    clearTimeout(this.optimizeTimer);
    this.optimizeTimer = undefined;
    if (hadPending && this.table) await this.optimize().catch(() => undefined);
    this.closed = true;
    await this.writes.run(async () => undefined);
    const t = await this.table?.catch(() => undefined);
    t?.close();
    const db = await this.db?.catch(() => undefined);
    db?.close();
  }
}

function toRow(c: ChunkRecord): Row {
  return {
    id: chunkId(c.documentId, c.chunkIndex, c.generation),
    account_id: c.accountId,
    doc_set_name: c.docSetName,
    document_id: c.documentId,
    file_name: c.fileName,
    page_number: c.pageNumber,
    source_type: c.sourceType,
    source_id: c.sourceId,
    chunk_index: c.chunkIndex,
    text: c.text,
    vector: c.embedding,
  };
}

function toChunk(r: Row): StoredChunk {
  return {
    id: r.id,
    accountId: r.account_id,
    docSetName: r.doc_set_name,
    documentId: r.document_id,
    fileName: r.file_name,
    pageNumber: r.page_number,
    sourceType: r.source_type,
    sourceId: r.source_id,
    chunkIndex: Number(r.chunk_index),
    text: r.text,
  };
}
