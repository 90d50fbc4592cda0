import { LocalHashingEmbedder } from '@docqa/embeddings';
import {
  ChunkRecord,
  cosine,
  ElasticsearchSearchIndex,
  INDEX_LAYOUT_VERSION,
  knnCandidates,
  PartialIndexingError,
  SearchQuery,
} from '@docqa/search';
import { infra, uniqueName } from '../support/infra';
import { deleteEsPrefix } from './es-cleanup';

/** Elasticsearch-specific behaviour: template/alias layout, bulk failures, mapping upgrades. */
describe('ElasticsearchSearchIndex', () => {
  const embedder = new LocalHashingEmbedder();
  const space = { modelName: embedder.modelName, dimensions: embedder.dimensions };
  const prefix = uniqueName('docqa-test-es');
  const open: ElasticsearchSearchIndex[] = [];
  const make = (o: Partial<ConstructorParameters<typeof ElasticsearchSearchIndex>[0]> = {}) => {
    const i = new ElasticsearchSearchIndex({ url: infra().elasticsearchUrl, prefix, space, ...o });
    open.push(i);
    return i;
  };
  const chunk = (text: string, n: number): ChunkRecord => ({
    accountId: 7,
    docSetName: 'ds',
    documentId: 'doc',
    fileName: 'f.pdf',
    pageNumber: String(n + 1),
    sourceType: 'S3',
    sourceId: 'f.pdf',
    chunkIndex: n,
    text,
    embedding: embedder.embed(text),
  });
  const q = (text: string): SearchQuery => ({
    accountId: 7,
    docSetNames: ['ds'],
    text,
    vector: embedder.embed(text),
    limit: 5,
    minimumSimilarityScore: 0,
  });

  afterAll(async () => {
    await deleteEsPrefix(open[0].client, prefix);
    for (const i of open) await i.close();
  });

  it('creates a versioned index from its template, behind the alias, with the agreed mapping', async () => {
    const idx = make();
    await idx.upsert([chunk('Running runners ran to the marathon finish', 0)]);
    expect(idx.indexName).toBe(`${prefix}-v${INDEX_LAYOUT_VERSION}-docqa-local-hash-v1-768`);
    const alias = await idx.client.indices.getAlias({ name: prefix });
    expect(Object.keys(alias)).toEqual([idx.indexName]);
    const tpl = await idx.client.indices.getIndexTemplate({ name: idx.indexName });
    expect(tpl.index_templates[0].index_template.index_patterns).toEqual([idx.indexName]);
    const m = (await idx.client.indices.getMapping({ index: idx.indexName }))[idx.indexName].mappings;
    expect(m._meta).toEqual({
      layoutVersion: INDEX_LAYOUT_VERSION,
      embeddingModel: 'docqa-local-hash-v1',
      dimensions: 768,
    });
    expect(m.properties).toMatchObject({
      accountId: { type: 'keyword' },
      docSetName: { type: 'keyword' },
      text: { type: 'text', analyzer: 'english', fields: { plain: { type: 'text', analyzer: 'standard' } } },
      documentTitle: { type: 'text', analyzer: 'english' },
      documentTerms: { type: 'text', analyzer: 'english' },
      section: { type: 'text', analyzer: 'english' },
      embedding: {
        type: 'dense_vector',
        dims: 768,
        similarity: 'cosine',
        index_options: { type: 'int8_hnsw' },
      },
    });
    // the English analyser stems: "run" matches "Running runners ran" only through stemming
    const hits = await idx.search({ ...q('run'), mode: 'bm25' });
    expect(hits).toHaveLength(1);
    // the port takes numbers; the index keeps the account id as the string it always stored
    expect(hits[0].chunk.accountId).toBe(7);
    const stored = await idx.client.get<{ accountId: unknown }>({ index: prefix, id: hits[0].chunk.id });
    expect(stored._source?.accountId).toBe('7');
    expect((await idx.stats()).indexName).toBe(idx.indexName);
  });

  it('reports bulk items Elasticsearch refuses (not swallowed)', async () => {
    const idx = make();
    await idx.ensureIndex();
    await idx.client.indices.putSettings({ index: idx.indexName, settings: { 'index.blocks.write': true } });
    try {
      const err = await idx
        .upsert([chunk('blocked one', 10), chunk('blocked two', 11)])
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PartialIndexingError);
      expect((err as PartialIndexingError).failures).toEqual([
        { id: 'doc:10', reason: expect.stringContaining('cluster_block_exception') },
        { id: 'doc:11', reason: expect.stringContaining('cluster_block_exception') },
      ]);
    } finally {
      await idx.client.indices.putSettings({
        index: idx.indexName,
        settings: { 'index.blocks.write': false },
      });
    }
  });

  it('upgrades the mapping by a new index and an atomic alias swap, keeping the chunks', async () => {
    const v1 = make();
    // A chunk of a later generation: its id (the only place the generation lives) must survive.
    await v1.upsert([
      chunk('Upgrade me to the next layout', 1),
      { ...chunk('Second generation kept', 2), generation: 3 },
    ]);
    const before = (await v1.stats()).chunks;
    const v2 = make({ layoutVersion: INDEX_LAYOUT_VERSION + 1 });
    await v2.ensureIndex();
    expect(v2.indexName).toBe(`${prefix}-v${INDEX_LAYOUT_VERSION + 1}-docqa-local-hash-v1-768`);
    expect(Object.keys(await v2.client.indices.getAlias({ name: prefix }))).toEqual([v2.indexName]);
    expect(await v2.client.indices.exists({ index: v1.indexName })).toBe(false);
    expect((await v2.stats()).chunks).toBe(before);
    const hits = await v2.search(q('upgrade layout'));
    expect(hits[0].chunk.id).toBe('doc:1');
    expect((await v2.search(q('second generation kept')))[0].chunk.id).toBe('doc:3:2');
    expect(await v2.deleteChunks(hits[0].chunk.accountId, 'doc', 3, 3)).toBe(1);
  });

  it('moves to a new, empty index when the embedder changes, keeping the old one for rollback', async () => {
    const next = INDEX_LAYOUT_VERSION + 1;
    const other = make({ layoutVersion: next, space: { modelName: 'embed-english-v3.0', dimensions: 1024 } });
    await other.ensureIndex();
    expect(other.indexName).toBe(`${prefix}-v${next}-embed-english-v3-0-1024`);
    expect(Object.keys(await other.client.indices.getAlias({ name: prefix }))).toEqual([other.indexName]);
    expect((await other.stats()).chunks).toBe(0);
    expect(await other.client.indices.exists({ index: `${prefix}-v${next}-docqa-local-hash-v1-768` })).toBe(
      true,
    );
  });

  it('refuses an invalid prefix', () => {
    expect(() => make({ prefix: 'Bad Prefix' })).toThrow(/SEARCH_INDEX_PREFIX/);
  });
});

/**
 * The kNN leg's neighbours: a graph search misses some of the nearest vectors, and which ones
 * depends on how the chunks fell into segments, so the same docset indexed twice ranked differently.
 * A docset within Elasticsearch's candidate limit is searched exactly (`knnCandidates`).
 */
describe('ElasticsearchSearchIndex kNN', () => {
  const dimensions = 64;
  const prefix = uniqueName('docqa-test-es-knn');
  const idx = new ElasticsearchSearchIndex({
    url: infra().elasticsearchUrl,
    prefix,
    space: { modelName: 'random-unit-64', dimensions },
  });
  // Seeded, so every run indexes the same vectors (mulberry32).
  let seed = 20261204;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
  const vector = () => Array.from({ length: dimensions }, random);

  afterAll(async () => {
    await deleteEsPrefix(idx.client, prefix);
    await idx.close();
  });

  it('returns the exact nearest neighbours of a docset within the candidate limit, over several segments', async () => {
    expect(knnCandidates(50, 3000)).toBe(10_000);
    expect(knnCandidates(50, 10_001)).toBe(100);
    expect(knnCandidates(400, 50_000)).toBe(800);
    const chunks: ChunkRecord[] = [];
    for (let n = 0; n < 3000; n++) {
      chunks.push({
        accountId: 9,
        docSetName: 'knn',
        documentId: `doc${n % 30}`,
        fileName: `f${n % 30}.pdf`,
        pageNumber: String(n),
        sourceType: 'S3',
        sourceId: `f${n % 30}.pdf`,
        chunkIndex: n,
        text: `chunk ${n}`,
        embedding: vector(),
      });
    }
    // Separate bulk requests, each waiting for a refresh: several segments, each searched alone.
    for (let i = 0; i < chunks.length; i += 500) await idx.upsert(chunks.slice(i, i + 500));
    const segments = await idx.client.cat.segments({ index: idx.indexName, format: 'json' });
    expect(segments.length).toBeGreaterThan(1);
    let missed = 0;
    for (let i = 0; i < 20; i++) {
      const query = vector();
      const exact = chunks
        .map((c) => ({ id: c.chunkIndex, s: cosine(query, c.embedding) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 50)
        .map((c) => c.id)
        .sort((a, b) => a - b);
      const hits = await idx.search({
        accountId: 9,
        docSetNames: ['knn'],
        text: '',
        vector: query,
        mode: 'vector',
        limit: 50,
        minimumSimilarityScore: -1,
      });
      const got = hits.map((h) => h.chunk.chunkIndex).sort((a, b) => a - b);
      missed += exact.filter((id) => !got.includes(id)).length;
    }
    expect(missed).toBe(0);
  });
});
