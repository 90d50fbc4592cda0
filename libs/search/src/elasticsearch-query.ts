import type { estypes } from '@elastic/elasticsearch';
import type { EmbeddingSpace } from '@docqa/common';
import {
  contextQueryText,
  DEFAULT_FIELD_BOOSTS,
  FieldBoosts,
  LegHit,
  LegQuery,
  storedAccountId,
} from './retrieval-legs';
import { DocumentHit } from './routing';
import { INDEX_LAYOUT_VERSION } from './index-version';
import { chunkId, ChunkRecord, ChunksByIdQuery, StoredChunk } from './search.port';
import { cosine } from './vectors';

/**
 * Query translation of the Elasticsearch adapter: pure functions from the port's and the legs'
 * queries to request bodies, and from stored documents back to domain types. No request is sent here.
 */

/**
 * Stored document: the chunk with nothing renamed, so _source maps 1:1 to the domain type, except
 * the account id, stored as a string (`storedAccountId`).
 */
export type ChunkDoc = Omit<ChunkRecord, 'accountId' | 'embedding' | 'generation'> & {
  accountId: string;
  embedding?: number[];
};

type Query = estypes.QueryDslQueryContainer;

/** Elasticsearch's limit on a kNN search's candidates per shard. */
export const KNN_MAX_CANDIDATES = 10_000;

/**
 * Candidates per shard for a kNN search of `k` hits over `matching` chunks (those the filter lets
 * through). Lucene scores every vector of a segment, exactly, when the segment holds no more
 * matching documents than the candidates asked; so a search whose whole filter matches at most
 * KNN_MAX_CANDIDATES chunks asks for that many and is exact, the same neighbours as the embedded
 * engine's flat scan whatever the segments' layout. Only larger sets walk the HNSW graph (twice k,
 * at least 100), approximate, where a full scan would cost more than the graph saves.
 */
export function knnCandidates(k: number, matching: number): number {
  if (matching <= KNN_MAX_CANDIDATES) return KNN_MAX_CANDIDATES;
  return Math.min(Math.max(k * 2, 100), KNN_MAX_CANDIDATES);
}

export const SOURCE_FIELDS = [
  'accountId',
  'docSetName',
  'documentId',
  'fileName',
  'pageNumber',
  'sourceType',
  'sourceId',
  'chunkIndex',
  'text',
  'documentTitle',
  'documentTerms',
  'section',
];

/** Index settings and mappings of one layout version; `_meta` records what the index holds. */
export function chunkIndexTemplate(
  space: EmbeddingSpace,
  layoutVersion = INDEX_LAYOUT_VERSION,
): {
  settings: estypes.IndicesIndexSettings;
  mappings: estypes.MappingTypeMapping;
} {
  return {
    settings: {
      number_of_shards: 1,
      auto_expand_replicas: '0-1',
      refresh_interval: '1s',
    },
    mappings: {
      dynamic: 'strict',
      _meta: {
        layoutVersion,
        embeddingModel: space.modelName,
        dimensions: space.dimensions,
      },
      properties: {
        accountId: { type: 'keyword' },
        docSetName: { type: 'keyword' },
        documentId: { type: 'keyword' },
        fileName: { type: 'keyword' },
        pageNumber: { type: 'keyword' },
        sourceType: { type: 'keyword' },
        sourceId: { type: 'keyword' },
        chunkIndex: { type: 'integer' },
        text: {
          type: 'text',
          analyzer: 'english',
          fields: { plain: { type: 'text', analyzer: 'standard' } },
        },
        documentTitle: { type: 'text', analyzer: 'english' },
        documentTerms: { type: 'text', analyzer: 'english' },
        section: { type: 'text', analyzer: 'english' },
        embedding: {
          type: 'dense_vector',
          dims: space.dimensions,
          index: true,
          similarity: 'cosine',
          index_options: { type: 'int8_hnsw', m: 16, ef_construction: 100 },
        },
      },
    },
  };
}

/** Filter every query carries: the account and its requested docsets (and routed documents). */
export function scopeFilter(q: Pick<LegQuery, 'storedAccountId' | 'docSetNames' | 'documentIds'>): Query[] {
  return [
    { term: { accountId: q.storedAccountId } },
    { terms: { docSetName: q.docSetNames } },
    ...(q.documentIds ? [{ terms: { documentId: q.documentIds } }] : []),
  ];
}

/**
 * BM25 leg: the English-analysed text (stemmed, stop words removed) plus its standard-analysed
 * subfield, so exact word forms score above mere stem matches, and the document context fields
 * with their boosts; the query's dates are added as date tokens (see `contextQueryText`).
 */
export function bm25Query(text: string, filter: Query[], boosts: Partial<FieldBoosts> = {}): Query {
  const b = { ...DEFAULT_FIELD_BOOSTS, ...boosts };
  return {
    bool: {
      filter,
      must: [
        {
          multi_match: {
            query: contextQueryText(text),
            fields: [
              'text',
              'text.plain^0.5',
              `section^${b.section}`,
              `documentTitle^${b.documentTitle}`,
              `documentTerms^${b.documentTerms}`,
            ],
            type: 'most_fields',
          },
        },
      ],
    },
  };
}

/** The routing leg: documents whose context (title, identifying terms) matches, one row each (chunk 0). */
export function documentsQuery(q: LegQuery): Query {
  return {
    bool: {
      filter: [...scopeFilter(q), { term: { chunkIndex: 0 } }],
      must: [
        {
          multi_match: {
            query: contextQueryText(q.text),
            fields: ['documentTitle', 'documentTerms'],
            type: 'most_fields',
          },
        },
      ],
    },
  };
}

/** The routing leg's hits: the documents' ids and scores. */
export function documentHits(hits: Array<estypes.SearchHit<ChunkDoc>>): DocumentHit[] {
  return hits.map((h) => {
    const s = h._source as ChunkDoc;
    return { documentId: s.documentId, score: h._score ?? 0, title: s.documentTitle || undefined };
  });
}

/** The kNN leg's search: `size` neighbours within the scope, candidates as `knnCandidates` says. */
export function knnSearch(
  q: LegQuery & { vector: number[] },
  size: number,
  matching: number,
): estypes.KnnSearch {
  return {
    field: 'embedding',
    query_vector: q.vector,
    k: size,
    num_candidates: knnCandidates(size, matching),
    filter: scopeFilter(q),
  };
}

/**
 * The kNN leg's hits scored again on their stored float vectors, exact (the index compares int8,
 * whose scale each segment sets), those below the cut-off dropped, best first.
 */
export function rescoredHits(
  hits: Array<estypes.SearchHit<ChunkDoc>>,
  vector: number[],
  minimumSimilarityScore: number,
): LegHit[] {
  const out: LegHit[] = [];
  for (const h of hits) {
    const stored = (h._source as ChunkDoc).embedding;
    // cosine _score is (1 + cos) / 2 (the graph's estimate, for a row stored without a vector)
    const similarity = stored ? cosine(vector, stored) : 2 * (h._score ?? 0) - 1;
    if (similarity >= minimumSimilarityScore) out.push({ chunk: toChunk(h), score: similarity });
  }
  return out.sort((a, b) => b.score - a.score);
}

/** The chunks by id of chunksAndTerms: the ids, within the account's named docsets. */
export function chunksByIdQuery(q: ChunksByIdQuery): Query {
  return {
    bool: {
      filter: [
        ...scopeFilter({ storedAccountId: storedAccountId(q.accountId), docSetNames: q.docSetNames }),
        { ids: { values: q.ids } },
      ],
    },
  };
}

/** The documents a delete removes: the account's, narrowed by `extra`. */
export function deleteQuery(accountId: number, extra: Query[]): Query {
  return { bool: { filter: [{ term: { accountId: storedAccountId(accountId) } }, ...extra] } };
}

/** The count of stats: the account's chunks, or every chunk. */
export function statsQuery(accountId: number | undefined): Query {
  return accountId === undefined ? { match_all: {} } : { term: { accountId: storedAccountId(accountId) } };
}

/**
 * 6 decimals keep cosine exact to ~1e-6 (the index quantises to int8) and halve the JSON size. The
 * generation lives in the id only (the mapping is strict).
 */
export function toDoc({ generation: _generation, ...c }: ChunkRecord): ChunkDoc {
  return {
    ...c,
    accountId: storedAccountId(c.accountId),
    embedding: c.embedding.map((x) => Math.round(x * 1e6) / 1e6),
  };
}

export function toChunk(h: estypes.SearchHit<ChunkDoc>): StoredChunk {
  const s = h._source as ChunkDoc;
  return {
    id: h._id ?? chunkId(s.documentId, s.chunkIndex),
    accountId: Number(s.accountId),
    docSetName: s.docSetName,
    documentId: s.documentId,
    fileName: s.fileName,
    pageNumber: s.pageNumber,
    sourceType: s.sourceType,
    sourceId: s.sourceId,
    chunkIndex: s.chunkIndex,
    text: s.text,
    documentTitle: s.documentTitle ?? '',
    documentTerms: s.documentTerms ?? '',
    section: s.section ?? '',
  };
}

/** The search body of chunksAndTerms' chunks by id: the chunks of the account's docsets with the given ids. */
export function chunksByIdBody(q: ChunksByIdQuery) {
  return { size: q.ids.length, _source: SOURCE_FIELDS, track_total_hits: false, query: chunksByIdQuery(q) };
}
