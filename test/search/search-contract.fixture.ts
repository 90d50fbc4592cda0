import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalHashingEmbedder } from '@docqa/embeddings';
import {
  ChunkRecord,
  ElasticsearchSearchIndex,
  EmbeddedSearchIndex,
  SearchIndex,
  SearchQuery,
} from '@docqa/search';
import { infra, uniqueName } from '../support/infra';
import { deleteEsPrefix } from './es-cleanup';

/**
 * One contract, two engines: every SearchIndex adapter must pass the same suites
 * (search-contract-*.e2e-spec.ts) against the real engine (the test Elasticsearch from test/infra,
 * and the embedded engine in a temp dir). This module holds what those suites share.
 */
export const embedder = new LocalHashingEmbedder();
export const space = { modelName: embedder.modelName, dimensions: embedder.dimensions };

export interface Subject {
  index: SearchIndex;
  reopen?: () => Promise<SearchIndex>;
  cleanup(): Promise<void>;
}

export const factories: Array<[string, () => Promise<Subject>]> = [
  [
    'elasticsearch',
    async () => {
      const url = infra().elasticsearchUrl;
      const prefix = uniqueName('docqa-test-chunks');
      const index = new ElasticsearchSearchIndex({ url, prefix, space });
      return {
        index,
        cleanup: async () => {
          await deleteEsPrefix(index.client, prefix);
          await index.close();
        },
      };
    },
  ],
  [
    'embedded',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-search-'));
      let index = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 200 });
      return {
        index,
        reopen: async () => {
          await index.close();
          index = new EmbeddedSearchIndex({ dir, space, optimizeDelayMs: 200 });
          return index;
        },
        cleanup: async () => {
          await index.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  ],
];

/**
 * Makes the engine's index before the suite's tests (handing it to `onOpen`) and cleans it up
 * after them. The answer reopens the index where the engine can (the embedded one).
 */
export function openSubject(
  make: () => Promise<Subject>,
  onOpen: (index: SearchIndex) => void,
): { readonly reopen?: () => Promise<SearchIndex> } {
  let s: Subject;
  beforeAll(async () => {
    s = await make();
    onOpen(s.index);
  });
  afterAll(() => s.cleanup());
  return {
    get reopen() {
      return s.reopen;
    },
  };
}

let seq = 0;
export function chunk(o: Partial<ChunkRecord> & { text: string }): ChunkRecord {
  const c = {
    accountId: 1,
    docSetName: 'manuals',
    documentId: `doc-${++seq}`,
    fileName: 'manual.pdf',
    pageNumber: '1',
    sourceType: 'S3',
    sourceId: 'bucket/manual.pdf',
    chunkIndex: 0,
    ...o,
  };
  return { ...c, embedding: o.embedding ?? embedder.embed(c.text) };
}

export function query(o: Partial<SearchQuery> & { text: string }): SearchQuery {
  return {
    accountId: 1,
    docSetNames: ['manuals'],
    vector: embedder.embed(o.text),
    limit: 10,
    minimumSimilarityScore: 0,
    ...o,
  };
}

export const MODES = ['hybrid', 'bm25', 'vector'] as const;
