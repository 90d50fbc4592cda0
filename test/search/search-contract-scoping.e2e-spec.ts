import { SearchIndex } from '@docqa/search';
import { chunk, factories, MODES, openSubject, query } from './search-contract.fixture';

/**
 * The SearchIndex contract (search-contract.fixture.ts), part two: reads by id, and every read, search and
 * delete kept to its account and docsets.
 */

describe.each(factories)('SearchIndex contract: %s', (_engine, make) => {
  let index: SearchIndex;
  openSubject(make, (opened) => (index = opened));
  /** The chunks of `ids` as chunksAndTerms reads them, with no term to probe. */
  const byId = async (q: { accountId: number; docSetNames: string[]; ids: string[] }) =>
    (await index.chunksAndTerms({ ...q, terms: [] })).chunks;

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
});
