import { hasMaintenance, SearchIndex, SearchQuery } from '@docqa/search';
import { chunk, factories, MODES, openSubject, query, space } from './search-contract.fixture';

/**
 * The SearchIndex contract (search-contract.fixture.ts), part three: ranking, the fusion of the two legs and
 * the document context fields.
 */

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
  let index: SearchIndex;
  openSubject(make, (opened) => (index = opened));

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
});
