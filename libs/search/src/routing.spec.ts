import { RetrievalLegs, runSearch } from './retrieval-legs';
import { diversify, DocumentHit, latestDocuments, namingWords, routedDocuments, withDays } from './routing';
import type { SearchQuery, StoredChunk } from './search.port';

describe('document routing and diversity', () => {
  const chunk = (id: string, documentId: string): StoredChunk => ({
    id,
    accountId: 1,
    docSetName: 'ds',
    documentId,
    fileName: `${documentId}.pdf`,
    pageNumber: '1',
    sourceType: 'S3',
    sourceId: 's',
    chunkIndex: 0,
    text: id,
  });
  const q: SearchQuery = {
    accountId: 1,
    docSetNames: ['ds'],
    text: 'flight time Tallahassee',
    vector: [1],
    limit: 3,
    minimumSimilarityScore: 0,
  };

  /** Legs whose documents leg answers `documents(text)`; they record the texts routed by and the BM25 legs' documents. */
  const recordingLegs = (documents: (text: string) => DocumentHit[]) => {
    const texts: string[] = [];
    const routedTo: Array<string[] | undefined> = [];
    const legs: RetrievalLegs = {
      bm25: async (lq) => {
        routedTo.push(lq.documentIds);
        return [];
      },
      vector: async () => [],
      documents: async (lq) => {
        texts.push(lq.text);
        return documents(lq.text);
      },
    };
    return { legs, texts, routedTo };
  };

  it('routes to the documents whose context comes close to the best, unless too many do', () => {
    const o = { weight: 1, share: 0.6, maxDocuments: 2 };
    const docs = (...scores: number[]) => scores.map((score, i) => ({ documentId: `d${i}`, score }));
    expect(routedDocuments(docs(10, 7, 3), o)).toEqual(['d0', 'd1']);
    expect(routedDocuments(docs(10, 9, 8), o)).toEqual([]); // nothing tells them apart
    expect(routedDocuments(docs(10), o)).toEqual(['d0']);
    // a document being re-indexed shows up in two generations
    expect(routedDocuments([...docs(10, 7), { documentId: 'd0', score: 10 }], o)).toEqual(['d0', 'd1']);
    expect(routedDocuments([], o)).toEqual([]);
  });

  it('adds legs restricted to the routed documents, so their chunks rank first', async () => {
    const seen: Array<string[] | undefined> = [];
    const legs: RetrievalLegs = {
      bm25: async (lq) => {
        seen.push(lq.documentIds);
        return lq.documentIds
          ? [{ chunk: chunk('t2', 'tal'), score: 1 }]
          : [
              { chunk: chunk('o1', 'other'), score: 3 },
              { chunk: chunk('o2', 'other'), score: 2 },
              { chunk: chunk('t2', 'tal'), score: 1 },
            ];
      },
      vector: async (lq) => (lq.documentIds ? [{ chunk: chunk('t2', 'tal'), score: 0.5 }] : []),
      documents: async () => [
        { documentId: 'tal', score: 9 },
        { documentId: 'other', score: 1 },
      ],
    };
    const routed = await runSearch(q, legs, 1);
    expect(seen).toEqual([undefined, ['tal']]);
    expect(routed[0].chunk.id).toBe('t2');
    const plain = await runSearch({ ...q, routing: { weight: 0 } }, legs, 1);
    expect(plain[0].chunk.id).toBe('o1');
  });

  it('routes to the documents holding a day the query names, besides its context match', async () => {
    // the context match of the whole query prefers `other` (it shares a frequent word with it);
    // the day's token alone finds the two documents of that day
    expect(withDays(['other'], ['d8a', 'd8b'])).toEqual(['other', 'd8a', 'd8b']);
    // a document matching both the words and the day narrows the routing to it
    expect(withDays(['tal', 'other'], ['tal', 'd8b'])).toEqual(['tal']);
    expect(withDays(['tal'], [])).toEqual(['tal']);
    const { legs, texts, routedTo } = recordingLegs((text) =>
      text === '20071208'
        ? [
            { documentId: 'd8a', score: 2 },
            { documentId: 'd8b', score: 2 },
          ]
        : [
            { documentId: 'other', score: 9 },
            { documentId: 'd8a', score: 3 },
          ],
    );
    await runSearch({ ...q, text: 'Which accidents happened on December 8, 2007?' }, legs, 1);
    expect(texts).toContain('20071208');
    expect(routedTo[1]?.sort()).toEqual(['d8a', 'd8b', 'other']);
  });

  it("falls back to the query's names and periods when its context match comes close to too many documents", async () => {
    expect(namingWords('Roughly how many times has JnJ sold its inventory in FY2022? FY2022')).toBe(
      'jnj FY2022',
    );
    expect(namingWords('Did revenue grow in Q2 FY2023 for Acme Corp?')).toBe('acme corp Q2 FY2023');
    expect(namingWords('How do I set the margins?')).toBe('');
    // the whole query: five documents share its words; its names: the company's two filings
    const documents = (namesRoute: boolean) => (text: string) =>
      text === 'jnj FY2022' && namesRoute
        ? [
            { documentId: 'jnj-10k', score: 6 },
            { documentId: 'jnj-q4', score: 5 },
            { documentId: 'mmm-10k', score: 2 },
          ]
        : ['jnj-10k', 'mmm-10k', 'axp-10k', 'jnj-q4', 'ba-10k'].map((documentId, i) => ({
            documentId,
            score: 5 - i * 0.2,
          }));
    const text = 'Roughly how many times has JnJ sold its inventory in FY2022?';
    const named = recordingLegs(documents(true));
    await runSearch({ ...q, text }, named.legs, 1);
    expect(named.texts).toEqual([`${text} FY2022`, 'jnj FY2022']);
    expect(named.routedTo[1]).toEqual(['jnj-10k', 'jnj-q4']);
    // names that come close to too many documents as well route nowhere
    const ambiguous = recordingLegs(documents(false));
    await runSearch({ ...q, text }, ambiguous.legs, 1);
    expect(ambiguous.texts).toHaveLength(2);
    expect(ambiguous.routedTo).toEqual([undefined]);
    // a query that writes no name is not read again
    const nameless = recordingLegs(documents(true));
    await runSearch({ ...q, text: 'how many times was inventory sold?' }, nameless.legs, 1);
    expect(nameless.texts).toHaveLength(1);
  });

  it('keeps at most perDocument chunks of one document ahead of other documents', async () => {
    expect(diversify(['a1', 'a2', 'a3', 'b1', 'a4', 'c1'], (x) => x[0], 2)).toEqual([
      'a1',
      'a2',
      'b1',
      'c1',
      'a3',
      'a4',
    ]);
    const legs: RetrievalLegs = {
      bm25: async () => ['a1', 'a2', 'a3', 'b1'].map((id, i) => ({ chunk: chunk(id, id[0]), score: 9 - i })),
      vector: async () => [],
    };
    const out = await runSearch({ ...q, diversity: { perDocument: 1 } }, legs, 1);
    expect(out.map((h) => h.chunk.id)).toEqual(['a1', 'b1', 'a2']);
  });
});

describe('latestDocuments', () => {
  const o = { weight: 1, share: 0.6, maxDocuments: 2 };
  const title = (form: string, period: string) =>
    `ACME CORP | ${form} | FY${period.slice(0, 4)} | period ended ${period}`;
  const hits = [
    { documentId: 'k2018', score: 10, title: title('10-K annual report', '2018-12-31') },
    { documentId: 'q2019', score: 9.5, title: title('10-Q quarterly report', '2019-06-30') },
    { documentId: 'k2019', score: 9, title: title('10-K annual report', '2019-12-31') },
    { documentId: 'k2017', score: 8, title: title('10-K annual report', '2017-12-31') },
    { documentId: 'far', score: 2, title: title('10-K annual report', '2023-12-31') },
  ];

  it('routes to the close document with the latest period, of the form the query names', () => {
    expect(latestDocuments('What did ACME report in its latest 10-K?', hits, o)).toEqual(['k2019']);
    expect(latestDocuments('the most recent quarterly report of ACME', hits, o)).toEqual(['q2019']);
    // no form named: the latest period of any close document; more close ones than maxDocuments
    expect(latestDocuments('ACME latest results', hits, o)).toEqual(['k2019']);
  });

  it('leaves routing as it is for other queries and documents without periods', () => {
    expect(latestDocuments('What did ACME report for FY2018?', hits, o)).toBeUndefined();
    const manuals = [{ documentId: 'm', score: 5, title: 'User Guide' }];
    expect(latestDocuments('What is the latest version?', manuals, o)).toBeUndefined();
    expect(latestDocuments('the latest 8-K of ACME', hits, o)).toBeUndefined();
  });
});
