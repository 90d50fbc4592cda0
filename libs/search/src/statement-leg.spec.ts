import { LegHit, RetrievalLegs, runSearch } from './retrieval-legs';
import type { SearchQuery, StoredChunk } from './search.port';

/** Statement pages (libs/text statements.ts): a question that names one gets its pages ahead. */
describe('runSearch: the statement a question names', () => {
  const chunk = (id: string, section?: string): StoredChunk => ({
    id,
    accountId: 1,
    docSetName: 'ds',
    documentId: 'tenk',
    fileName: 'tenk.pdf',
    pageNumber: id,
    sourceType: 'S3',
    sourceId: 's',
    chunkIndex: 0,
    text: id,
    section,
  });
  const cashFlow = chunk('60', 'Cash flow statement > Consolidated Statement of Cash Flows');
  const balance = chunk('58', 'Balance sheet > Consolidated Balance Sheet');
  const prose = (id: string) => chunk(id, 'Liquidity');
  const q: SearchQuery = {
    accountId: 1,
    docSetNames: ['ds'],
    text: 'What was capital expenditure in 2018? Use the cash flow statement.',
    vector: [1],
    limit: 5,
    minimumSimilarityScore: 0,
  };
  const scored = (...chunks: StoredChunk[]): LegHit[] => chunks.map((c, i) => ({ chunk: c, score: 10 - i }));

  function legs(texts: string[]): RetrievalLegs {
    return {
      bm25: async (lq) => {
        texts.push(lq.text);
        // the statement's name finds the labelled pages (and prose that mentions cash flows)
        return lq.text === 'Cash flow statement'
          ? scored(prose('41'), cashFlow, balance)
          : scored(prose('37'), prose('41'), prose('43'), cashFlow, prose('49'), balance);
      },
      vector: async () => scored(prose('37'), prose('43'), prose('41')),
    };
  }

  it("searches the statement's name and ranks its pages first", async () => {
    const texts: string[] = [];
    const out = await runSearch(q, legs(texts), 1);
    expect(texts).toContain('Cash flow statement');
    expect(out[0].chunk.id).toBe('60');
    // a page of another statement gets no preference: it stays last
    expect(out.map((h) => h.chunk.id)).not.toContain('58');
  });

  it('reads the statement from the metric a question names', async () => {
    const texts: string[] = [];
    const out = await runSearch({ ...q, text: 'What was capital expenditure in 2018?' }, legs(texts), 1);
    expect(texts).toContain('Cash flow statement');
    expect(out[0].chunk.id).toBe('60');
  });

  it('changes nothing for a question that names no statement or metric', async () => {
    const texts: string[] = [];
    const out = await runSearch(
      { ...q, text: 'What did the company invest in during 2018?' },
      legs(texts),
      1,
    );
    expect(texts).not.toContain('Cash flow statement');
    expect(out[0].chunk.id).toBe('37');
  });
});
