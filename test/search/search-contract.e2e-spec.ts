import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalHashingEmbedder } from '@docqa/embeddings';
import {
  ChunkRecord,
  ElasticsearchSearchIndex,
  EmbeddedSearchIndex,
  hasMaintenance,
  PartialIndexingError,
  SearchIndex,
  SearchQuery,
} from '@docqa/search';
import { infra, uniqueName } from '../support/infra';
import { deleteEsPrefix } from './es-cleanup';

/**
 * One contract, two engines: every SearchIndex adapter must pass the same suite against the real
 * engine (the test Elasticsearch from test/infra, and the embedded engine in a temp dir).
 */
const embedder = new LocalHashingEmbedder();
const space = { modelName: embedder.modelName, dimensions: embedder.dimensions };

interface Subject {
  index: SearchIndex;
  reopen?: () => Promise<SearchIndex>;
  cleanup(): Promise<void>;
}

const factories: Array<[string, () => Promise<Subject>]> = [
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

let seq = 0;
function chunk(o: Partial<ChunkRecord> & { text: string }): ChunkRecord {
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

function query(o: Partial<SearchQuery> & { text: string }): SearchQuery {
  return {
    accountId: 1,
    docSetNames: ['manuals'],
    vector: embedder.embed(o.text),
    limit: 10,
    minimumSimilarityScore: 0,
    ...o,
  };
}

const MODES = ['hybrid', 'bm25', 'vector'] as const;

const CORPUS = [
  'The geometry package sets page margins, paper size and the text area of a LaTeX document.',
  'Mnesia is a distributed database management system for Erlang applications with replicated tables.',
  'R is a language and environment for statistical computing and graphics, with data frames and vectors.',
  'Booktabs produces publication quality tables with rules of different weights above and below.',
  'Ghostscript colour management converts between ICC profiles for device independent colour.',
  'EUnit is a lightweight unit testing framework for Erlang with test generators and fixtures.',
];

/** Basis vector e_i, and unit vectors near it, to craft exact kNN orders. */
function basis(i: number, dims = space.dimensions): number[] {
  const v = new Array<number>(dims).fill(0);
  v[i] = 1;
  return v;
}
function mix(a: number[], b: number[], wa: number): number[] {
  const wb = Math.sqrt(1 - wa * wa);
  return a.map((x, i) => wa * x + wb * b[i]);
}

describe.each(factories)('SearchIndex contract: %s', (_engine, make) => {
  let s: Subject;
  let index: SearchIndex;
  /** The chunks of `ids` as chunksAndTerms reads them, with no term to probe. */
  const byId = async (q: { accountId: number; docSetNames: string[]; ids: string[] }) =>
    (await index.chunksAndTerms({ ...q, terms: [] })).chunks;

  beforeAll(async () => {
    s = await make();
    index = s.index;
  });
  afterAll(() => s.cleanup());

  it('an empty index answers searches, stats and deletes with nothing', async () => {
    for (const mode of MODES) expect(await index.search(query({ text: 'margins', mode }))).toEqual([]);
    expect(await index.stats()).toMatchObject({
      chunks: 0,
      embeddingModel: space.modelName,
      dimensions: 768,
    });
    expect(await index.deleteByDocSet(1, 'manuals')).toBe(0);
    expect(await index.deleteByDocument(1, 'nope')).toBe(0);
    expect(await index.deleteByAccount(1)).toBe(0);
  });

  it('upserts chunks and finds them in every mode, fields intact', async () => {
    const chunks = CORPUS.map((text, i) =>
      chunk({
        text,
        documentId: 'corpus-doc',
        chunkIndex: i,
        pageNumber: String(i + 1),
        fileName: 'corpus.pdf',
      }),
    );
    expect(await index.upsert(chunks)).toEqual({ indexed: CORPUS.length });
    for (const mode of MODES) {
      const hits = await index.search(query({ text: 'geometry page margins', mode }));
      expect(hits[0].chunk).toEqual({
        id: 'corpus-doc:0',
        accountId: 1,
        docSetName: 'manuals',
        documentId: 'corpus-doc',
        fileName: 'corpus.pdf',
        pageNumber: '1',
        sourceType: 'S3',
        sourceId: 'bucket/manual.pdf',
        chunkIndex: 0,
        text: CORPUS[0],
        documentTitle: '',
        documentTerms: '',
        section: '',
      });
    }
    const hybrid = await index.search(query({ text: 'geometry page margins' }));
    expect(hybrid[0]).toMatchObject({ bm25Rank: 1, vectorRank: 1 });
    expect(hybrid[0].similarity).toBeGreaterThan(0.3);
    expect((await index.stats(1)).chunks).toBe(CORPUS.length);
  });

  it('re-indexing is idempotent: same ids replace, never duplicate', async () => {
    const c = chunk({ text: 'Idempotent chunk about quaternions', documentId: 'idem', chunkIndex: 0 });
    await index.upsert([c]);
    await index.upsert([
      { ...c, text: 'Idempotent chunk about octonions', embedding: embedder.embed('octonions') },
    ]);
    await index.upsert([c, { ...c, text: 'Idempotent chunk about octonions' }]); // last one in a batch wins
    const hits = await index.search(query({ text: 'idempotent', mode: 'bm25' }));
    expect(hits).toHaveLength(1);
    expect(hits[0].chunk.text).toBe('Idempotent chunk about octonions');
    expect(await index.deleteByDocument(1, 'idem')).toBe(1);
  });

  it('generations of one document live side by side; deleteChunks retires exactly one of them', async () => {
    const v1 = [0, 1, 2].map((i) =>
      chunk({ text: `Swap version one part ${i} pelican`, documentId: 'swap', chunkIndex: i }),
    );
    const v2 = [0, 1].map((i) =>
      chunk({ text: `Swap version two part ${i} pelican`, documentId: 'swap', chunkIndex: i, generation: 1 }),
    );
    await index.upsert(v1);
    await index.upsert(v2);
    const both = await index.search(query({ text: 'pelican', mode: 'bm25' }));
    expect(both.map((h) => h.chunk.id).sort()).toEqual([
      'swap:0',
      'swap:1',
      'swap:1:0',
      'swap:1:1',
      'swap:2',
    ]);
    expect(both.every((h) => !('generation' in h.chunk))).toBe(true);
    // Deletes are scoped to the account.
    expect(await index.deleteChunks(2, 'swap', 0, 3)).toBe(0);
    expect(await index.deleteChunks(1, 'swap', 0, 3)).toBe(3);
    const after = await index.search(query({ text: 'pelican', mode: 'bm25' }));
    expect(after.map((h) => h.chunk.text).sort()).toEqual([
      'Swap version two part 0 pelican',
      'Swap version two part 1 pelican',
    ]);
    expect(await index.deleteChunks(1, 'swap', 0, 3)).toBe(0);
    expect(await index.deleteChunks(1, 'swap', 1, 2)).toBe(2);
    expect(await index.search(query({ text: 'pelican', mode: 'bm25' }))).toEqual([]);
  });

  it('reads chunks by id within the account and its named docsets only, every field intact', async () => {
    const mine = [0, 1, 2].map((i) =>
      chunk({ text: `Neighbour part ${i}`, documentId: 'nb', chunkIndex: i, pageNumber: String(i + 1) }),
    );
    const nextGeneration = chunk({
      text: 'Neighbour part 1, v2',
      documentId: 'nb',
      chunkIndex: 1,
      generation: 2,
    });
    const otherAccount = chunk({
      accountId: 2,
      text: 'Neighbour of account 2',
      documentId: 'nb2',
      chunkIndex: 1,
    });
    const otherDocset = chunk({
      docSetName: 'other',
      text: 'Neighbour elsewhere',
      documentId: 'nb3',
      chunkIndex: 1,
    });
    await index.upsert([...mine, nextGeneration, otherAccount, otherDocset]);
    const ids = ['nb:1', 'nb:2:1', 'nb2:1', 'nb3:1', 'nb:9'];
    const got = await byId({ accountId: 1, docSetNames: ['manuals'], ids });
    expect(got.map((c) => c.id).sort()).toEqual(['nb:1', 'nb:2:1']);
    expect(got.find((c) => c.id === 'nb:1')).toEqual({
      id: 'nb:1',
      accountId: 1,
      docSetName: 'manuals',
      documentId: 'nb',
      fileName: 'manual.pdf',
      pageNumber: '2',
      sourceType: 'S3',
      sourceId: 'bucket/manual.pdf',
      chunkIndex: 1,
      text: 'Neighbour part 1',
      documentTitle: '',
      documentTerms: '',
      section: '',
    });
    expect(await byId({ accountId: 2, docSetNames: ['manuals'], ids })).toMatchObject([
      { id: 'nb2:1', accountId: 2 },
    ]);
    expect(await byId({ accountId: 1, docSetNames: [], ids })).toEqual([]);
    expect(await byId({ accountId: 1, docSetNames: ['manuals'], ids: [] })).toEqual([]);
    await expect(
      byId({
        accountId: 1,
        docSetNames: ['manuals'],
        ids: Array.from({ length: 101 }, (_, i) => `x:${i}`),
      }),
    ).rejects.toThrow(RangeError);
    for (const [account, documentId] of [
      [1, 'nb'],
      [2, 'nb2'],
      [1, 'nb3'],
    ] as const)
      await index.deleteByDocument(account, documentId);
  });

  it('reads chunks by id and probes terms in one read, as reading ids alone and bm25 searches answer', async () => {
    const mine = [0, 1].map((i) =>
      chunk({ text: `Walrus handbook part ${i}`, documentId: 'ct', chunkIndex: i, section: 'Tusk care' }),
    );
    const otherAccount = chunk({ accountId: 2, text: 'Narwhal notes', documentId: 'ct2' });
    const otherDocset = chunk({ docSetName: 'other', text: 'Platypus notes', documentId: 'ct3' });
    await index.upsert([...mine, otherAccount, otherDocset]);
    const terms = ['walrus', 'narwhal', 'platypus', 'tusk', 'quokka'];
    const scope = { accountId: 1, docSetNames: ['manuals'] };
    const got = await index.chunksAndTerms({ ...scope, ids: ['ct:1', 'ct2:0', 'ct:7'], terms });
    expect(got.chunks.map((c) => c.id)).toEqual(['ct:1']);
    expect(got.chunks[0]).toEqual((await byId({ ...scope, ids: ['ct:1'] }))[0]);
    // Another account's and another docset's chunks are not found; a section heading is.
    expect(got.termsFound).toEqual([true, false, false, true, false]);
    for (const [i, t] of terms.entries()) {
      const hits = await index.search(query({ text: t, mode: 'bm25', limit: 1 }));
      expect(hits.length > 0).toBe(got.termsFound[i]);
    }
    expect(await index.chunksAndTerms({ ...scope, ids: [], terms: ['walrus'] })).toEqual({
      chunks: [],
      termsFound: [true],
    });
    expect(await index.chunksAndTerms({ ...scope, ids: ['ct:0'], terms: [] })).toMatchObject({
      chunks: [{ id: 'ct:0' }],
      termsFound: [],
    });
    expect(
      await index.chunksAndTerms({ ...scope, docSetNames: [], ids: ['ct:0'], terms: ['walrus'] }),
    ).toEqual({
      chunks: [],
      termsFound: [false],
    });
    await expect(
      index.chunksAndTerms({ ...scope, ids: [], terms: Array.from({ length: 21 }, (_, i) => `t${i}`) }),
    ).rejects.toThrow(RangeError);
    await index.deleteByDocument(1, 'ct');
    await index.deleteByDocument(2, 'ct2');
    await index.deleteByDocument(1, 'ct3');
  });

  it('keeps tenants apart: same docset name in two accounts never mixes', async () => {
    await index.upsert([
      chunk({
        accountId: 11,
        docSetName: 'shared',
        text: 'Tenant one secret: the launch code is zebra',
      }),
      chunk({
        accountId: 12,
        docSetName: 'shared',
        text: 'Tenant two secret: the launch code is zebra',
      }),
    ]);
    for (const [me, other] of [
      [11, 12],
      [12, 11],
    ]) {
      for (const mode of MODES) {
        const hits = await index.search(
          query({ accountId: me, docSetNames: ['shared'], text: 'launch code zebra', mode }),
        );
        expect(hits.length).toBe(1);
        expect(hits.every((h) => h.chunk.accountId === me)).toBe(true);
        expect(hits.some((h) => h.chunk.text.includes(other === 11 ? 'one' : 'two'))).toBe(false);
      }
    }
    // deletes are scoped too: another account's delete of the same docset touches nothing of ours
    expect(await index.deleteByDocSet(13, 'shared')).toBe(0);
    expect(await index.deleteByAccount(11)).toBe(1);
    expect(await index.search(query({ accountId: 12, docSetNames: ['shared'], text: 'zebra' }))).toHaveLength(
      1,
    );
    expect(await index.deleteByAccount(12)).toBe(1);
  });

  it('filters by docset names', async () => {
    await index.upsert([
      chunk({ docSetName: 'ds-one', text: 'Harbour pilots board ships at the breakwater' }),
      chunk({ docSetName: 'ds-two', text: 'Harbour cranes unload containers at the quay' }),
    ]);
    for (const mode of MODES) {
      const one = await index.search(query({ docSetNames: ['ds-one'], text: 'harbour', mode }));
      expect(one.map((h) => h.chunk.docSetName)).toEqual(['ds-one']);
      const both = await index.search(query({ docSetNames: ['ds-one', 'ds-two'], text: 'harbour', mode }));
      expect(both.map((h) => h.chunk.docSetName).sort()).toEqual(['ds-one', 'ds-two']);
      expect(await index.search(query({ docSetNames: [], text: 'harbour', mode }))).toEqual([]);
      expect(await index.search(query({ docSetNames: ['nope'], text: 'harbour', mode }))).toEqual([]);
    }
  });

  it('ranks an exact keyword hit first on BM25', async () => {
    await index.upsert([
      chunk({
        docSetName: 'kw',
        text: 'The heightrounded option avoids underfull vbox warnings in some cases.',
      }),
      chunk({ docSetName: 'kw', text: 'Height and width of the body are rounded to whole lines of text.' }),
      chunk({ docSetName: 'kw', text: 'Rounded corners and heights of boxes are set with options.' }),
    ]);
    const hits = await index.search(query({ docSetNames: ['kw'], text: 'heightrounded', mode: 'bm25' }));
    expect(hits[0].chunk.text).toContain('heightrounded');
    const hybrid = await index.search(query({ docSetNames: ['kw'], text: 'heightrounded' }));
    expect(hybrid[0].chunk.text).toContain('heightrounded');
  });

  it('ranks the exact word form above a chunk that only shares its stem, on BM25', async () => {
    // "running" and "runs" stem alike: only the plain (unstemmed) text tells them apart. Both chunks
    // have the same length and the same other words, so without it they would tie.
    const exact = 'Trail running shoes need a firm heel and a grippy sole.';
    const stem = 'Trail runs shoes need a firm heel and a grippy sole.';
    await index.upsert([
      chunk({ docSetName: 'forms', text: stem }),
      chunk({ docSetName: 'forms', text: exact }),
    ]);
    const hits = await index.search(query({ docSetNames: ['forms'], text: 'running shoes', mode: 'bm25' }));
    expect(hits.map((h) => h.chunk.text)).toEqual([exact, stem]);
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
  });

  it('finds a misspelled query through the vector leg', async () => {
    const text = 'Replicated Mnesia tables survive node failures through transactions.';
    await index.upsert([
      chunk({ docSetName: 'typo', text }),
      chunk({ docSetName: 'typo', text: 'Ghostscript renders PostScript and PDF files to raster images.' }),
      chunk({ docSetName: 'typo', text: 'Booktabs rules give tables a clean typographic look.' }),
    ]);
    const q = { docSetNames: ['typo'], text: 'replcated mnesai tabels' };
    expect(await index.search(query({ ...q, mode: 'bm25' }))).toEqual([]);
    const vector = await index.search(query({ ...q, mode: 'vector' }));
    expect(vector[0].chunk.text).toBe(text);
    const hybrid = await index.search(query(q));
    expect(hybrid[0].chunk.text).toBe(text);
    expect(hybrid[0].bm25Rank).toBeUndefined();
  });

  it('fuses legs with reciprocal rank fusion or the convex combination (crafted order) and applies minimumSimilarityScore', async () => {
    const q = basis(0);
    const x = chunk({ docSetName: 'rrf', text: 'alpha alpha alpha alpha', embedding: basis(2) }); // BM25 #1 only
    const z = chunk({
      docSetName: 'rrf',
      text: 'alpha beta gamma delta epsilon',
      embedding: mix(q, basis(1), 0.9),
    }); // #2 in both
    const y = chunk({ docSetName: 'rrf', text: 'omega', embedding: q }); // vector #1 only
    await index.upsert([x, z, y]);
    const base = { docSetNames: ['rrf'], text: 'alpha', vector: q, minimumSimilarityScore: 0.5 };
    expect((await index.search(query({ ...base, mode: 'bm25' }))).map((h) => h.chunk.text)).toEqual([
      x.text,
      z.text,
    ]);
    const vec = await index.search(query({ ...base, mode: 'vector' }));
    expect(vec.map((h) => h.chunk.text)).toEqual([y.text, z.text]);
    expect(vec[0].similarity).toBeCloseTo(1, 1);
    expect(vec[1].similarity).toBeCloseTo(0.9, 1);
    const rrf = { method: 'rrf' as const };
    const hybrid = await index.search(query({ ...base, fusion: rrf }));
    expect(hybrid.map((h) => [h.chunk.text, h.bm25Rank, h.vectorRank])).toEqual([
      [z.text, 2, 2],
      [x.text, 1, undefined],
      [y.text, undefined, 1],
    ]);
    expect(hybrid[0].score).toBeCloseTo(2 / 62, 6);
    expect(hybrid[1].score).toBeCloseTo(1 / 61, 6);
    // a higher cut-off drops z from the kNN leg
    const strict = await index.search(query({ ...base, mode: 'vector', minimumSimilarityScore: 0.95 }));
    expect(strict.map((h) => h.chunk.text)).toEqual([y.text]);
    expect((await index.search(query({ ...base, limit: 1, fusion: rrf }))).map((h) => h.chunk.text)).toEqual([
      z.text,
    ]);
    // the default, the convex combination: each leg's best scores 1 and its last 0, so z, last in
    // both legs, falls behind the two leaders (BM25 first on a tie)
    const convex = await index.search(query(base));
    expect(convex.map((h) => [h.chunk.text, h.bm25Rank, h.vectorRank, h.score])).toEqual([
      [x.text, 1, undefined, 0.5],
      [y.text, undefined, 1, 0.5],
      [z.text, 2, 2, 0],
    ]);
  });

  it('scores the vector leg by the exact cosine, however the engine stores its vectors', async () => {
    // 40 vectors at known cosines from the query, spread over [0.30, 0.69], among 400 far ones so
    // that a graph is searched (a small filtered set is scanned exactly): a quantised score
    // (Elasticsearch's int8 graph) is off by up to a few thousandths and reorders close ones
    const q = basis(3);
    const cosines = Array.from({ length: 40 }, (_, i) => 0.3 + i * 0.01);
    const noise = (i: number) => mix(basis(10 + (i % 300)), basis(320 + ((i * 7) % 400)), 0.6);
    const far = Array.from({ length: 400 }, (_, i) =>
      chunk({
        docSetName: 'exact',
        fileName: `far${i}.pdf`,
        text: `far ${i}`,
        embedding: mix(q, noise(i + 40), 0.1),
      }),
    );
    const near = cosines.map((c, i) =>
      chunk({
        docSetName: 'exact',
        fileName: `f${i}.pdf`,
        text: `vector ${i}`,
        embedding: mix(q, noise(i), c),
      }),
    );
    for (let i = 0; i < 4; i++)
      await index.upsert([...far.slice(i * 100, i * 100 + 100), ...near.slice(i * 10, i * 10 + 10)]);
    const hits = await index.search(
      query({ docSetNames: ['exact'], text: 'vector', vector: q, mode: 'vector', limit: 40 }),
    );
    expect(hits.map((h) => h.chunk.fileName)).toEqual(cosines.map((_, i) => `f${39 - i}.pdf`));
    hits.forEach((h, i) => expect(h.similarity).toBeCloseTo(cosines[39 - i], 4));
  });

  it('ranks equal scores in a stable order: by file name, whatever the order they were written in', async () => {
    const text = 'Identical boilerplate paragraph about licences and warranties.';
    const files = ['zeta.pdf', 'mu.pdf', 'alpha.pdf', 'kappa.pdf'];
    for (const fileName of files) await index.upsert([chunk({ docSetName: 'ties', fileName, text })]);
    // Every row in the full-text index first: the embedded engine scores rows its index has not taken
    // in yet by another path, a little apart from indexed ones, so identical rows written on either
    // side of a maintenance run were not ties (the order then followed the engine's maintenance).
    if (hasMaintenance(index)) await index.settle();
    const sorted = [...files].sort();
    for (const mode of MODES) {
      const hits = await index.search(query({ docSetNames: ['ties'], text: 'boilerplate licences', mode }));
      expect(hits.map((h) => h.chunk.fileName)).toEqual(sorted);
    }
  });

  it('delete by docset leaves nothing of it, and nothing else is touched', async () => {
    await index.upsert([
      chunk({
        docSetName: 'doomed',
        documentId: 'doomed-1',
        chunkIndex: 0,
        text: 'Ephemeral doomed notes one',
      }),
      chunk({
        docSetName: 'doomed',
        documentId: 'doomed-1',
        chunkIndex: 1,
        text: 'Ephemeral doomed notes two',
      }),
      chunk({ docSetName: 'doomed', documentId: 'doomed-2', text: 'Ephemeral doomed notes three' }),
      chunk({ docSetName: 'kept', text: 'Ephemeral kept notes' }),
    ]);
    expect(await index.deleteByDocument(1, 'doomed-2')).toBe(1);
    expect(await index.deleteByDocSet(1, 'doomed')).toBe(2);
    for (const mode of MODES) {
      expect(
        await index.search(query({ docSetNames: ['doomed'], text: 'ephemeral doomed notes', mode })),
      ).toEqual([]);
      expect(await index.search(query({ docSetNames: ['kept'], text: 'ephemeral', mode }))).toHaveLength(1);
    }
    expect(await index.deleteByDocSet(1, 'doomed')).toBe(0);
  });

  it('handles unicode and very long text', async () => {
    const long = `${'lorem ipsum dolor sit amet '.repeat(8000)} finalword xylophone`;
    await index.upsert([
      chunk({ docSetName: 'uni', text: 'Größe der Ränder: café crème brûlée, naïve résumé 😀' }),
      chunk({ docSetName: 'uni', text: '日本語のテキスト検索 and Ελληνικά γράμματα' }),
      chunk({ docSetName: 'uni', text: long, fileName: 'très long — fichier.pdf', pageNumber: '12' }),
    ]);
    const cafe = await index.search(query({ docSetNames: ['uni'], text: 'café crème', mode: 'bm25' }));
    expect(cafe[0].chunk.text).toContain('café');
    const greek = await index.search(query({ docSetNames: ['uni'], text: 'Ελληνικά', mode: 'bm25' }));
    expect(greek[0].chunk.text).toContain('Ελληνικά');
    const tail = await index.search(query({ docSetNames: ['uni'], text: 'xylophone' }));
    expect(tail[0].chunk).toMatchObject({ fileName: 'très long — fichier.pdf', pageNumber: '12' });
    expect(tail[0].chunk.text).toHaveLength(long.length);
  });

  it('reports refused chunks instead of swallowing them, and writes the rest', async () => {
    const good = chunk({ docSetName: 'partial', text: 'A perfectly fine chunk' });
    const bad = { ...chunk({ docSetName: 'partial', text: 'Wrong dimensions' }), embedding: [1, 0, 0] };
    const err = await index.upsert([good, bad]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialIndexingError);
    expect(err).toMatchObject({ indexed: 1, failures: [{ id: `${bad.documentId}:0` }] });
    expect(await index.search(query({ docSetNames: ['partial'], text: 'perfectly fine' }))).toHaveLength(1);
  });

  it('stays consistent under concurrent writes and reads', async () => {
    const writes = Array.from({ length: 8 }, (_, w) =>
      index.upsert(
        Array.from({ length: 25 }, (_, i) =>
          chunk({
            docSetName: 'conc',
            documentId: `conc-${w}`,
            chunkIndex: i,
            text: `concurrent writer ${w} item ${i}`,
          }),
        ),
      ),
    );
    const reads = Array.from({ length: 8 }, () =>
      index.search(query({ docSetNames: ['conc'], text: 'concurrent' })),
    );
    await Promise.all([...writes, ...reads]);
    const hits = await index.search(
      query({ docSetNames: ['conc'], text: 'concurrent writer', limit: 1000, mode: 'bm25' }),
    );
    expect(hits).toHaveLength(200);
    expect(await index.deleteByDocSet(1, 'conc')).toBe(200);
  });

  it('bulk-indexes 10,000 chunks', async () => {
    const words = 'apple banana cherry delta echo foxtrot golf hotel india juliet kilo lima mike'.split(' ');
    const chunks = Array.from({ length: 10_000 }, (_, i) =>
      chunk({
        accountId: 21,
        docSetName: 'bulk',
        documentId: `bulk-${Math.floor(i / 100)}`,
        chunkIndex: i % 100,
        text: `${words[i % 13]} ${words[(i * 7) % 13]} ${words[(i * 11) % 13]} record number n${i}`,
      }),
    );
    chunks[9_876] = { ...chunks[9_876], text: 'needle in the haystack quasar' };
    const t0 = Date.now();
    expect(await index.upsert(chunks)).toEqual({ indexed: 10_000 });
    const ms = Date.now() - t0;
    expect((await index.stats(21)).chunks).toBe(10_000);
    const hits = await index.search(query({ accountId: 21, docSetNames: ['bulk'], text: 'quasar haystack' }));
    expect(hits[0].chunk.id).toBe('bulk-98:76');
    console.log(`[${index.engine}] bulk 10,000 chunks in ${ms} ms`);
    expect(await index.deleteByAccount(21)).toBe(10_000);
  });

  it('searches the document context fields, returns them, and routes to the document a question names', async () => {
    // Quarterly reports of two companies: a page rarely repeats the company's name, its context does.
    const report = (company: string, ticker: string, n: number, text: string, section: string) =>
      chunk({
        docSetName: 'quarterly',
        documentId: `${ticker}-q3`,
        fileName: `${ticker}_10Q_2023Q3.pdf`,
        chunkIndex: n,
        pageNumber: String(n + 1),
        text,
        documentTitle: `FORM 10-Q | ${ticker} 10Q 2023Q3`,
        documentTerms: `${company} Inc ${ticker} Nasdaq 20230701 202307`,
        section,
      });
    const sales = 'Total net sales increased compared with the same quarter a year earlier.';
    await index.upsert([
      report('Apple', 'AAPL', 0, 'Quarterly report pursuant to the Securities Exchange Act.', ''),
      report('Apple', 'AAPL', 1, sales, 'Net Sales'),
      report('Microsoft', 'MSFT', 0, 'Quarterly report pursuant to the Securities Exchange Act.', ''),
      report('Microsoft', 'MSFT', 1, sales, 'Net Sales'),
      report('Microsoft', 'MSFT', 2, `${sales} Cloud revenue grew.`, 'Net Sales'),
    ]);
    const ask = (text: string, o: Partial<SearchQuery> = {}) =>
      index.search(query({ docSetNames: ['quarterly'], text, ...o }));
    for (const mode of ['hybrid', 'bm25'] as const) {
      const apple = await ask("How have Apple's total net sales changed?", { mode });
      expect(apple[0].chunk).toMatchObject({
        documentId: 'AAPL-q3',
        fileName: 'AAPL_10Q_2023Q3.pdf',
        pageNumber: '2',
        section: 'Net Sales',
        documentTerms: expect.stringContaining('Apple'),
      });
      const microsoft = await ask('Microsoft total net sales', { mode });
      expect(microsoft[0].chunk.documentId).toBe('MSFT-q3');
    }
    // a date in the question matches the date tokens of the context
    const dated = await ask('net sales in the quarter ended July 1, 2023', { mode: 'bm25' });
    expect(dated.every((h) => h.chunk.documentTerms?.includes('20230701'))).toBe(true);
    // the section field is searched too
    expect((await ask('net sales', { mode: 'bm25' }))[0].chunk.section).toBe('Net Sales');
    // diversity: at most one chunk per document before the others
    const diverse = await ask('total net sales', { diversity: { perDocument: 1 }, limit: 2 });
    expect(new Set(diverse.map((h) => h.chunk.documentId))).toEqual(new Set(['AAPL-q3', 'MSFT-q3']));
  });

  it('persists across restarts (embedded) / reports health', async () => {
    expect(await index.health()).toMatchObject({ engine: index.engine, up: true });
    if (!s.reopen) return;
    await index.upsert([chunk({ docSetName: 'persist', text: 'Durable words survive restarts' })]);
    index = await s.reopen();
    const hits = await index.search(query({ docSetNames: ['persist'], text: 'durable restarts' }));
    expect(hits).toHaveLength(1);
    expect(await index.health()).toMatchObject({ up: true });
  });
});
