import { LocalHashingEmbedder } from '@docqa/embeddings';
import { LocalReranker, LocalRewriter, Reranker } from '@docqa/answers';
import { analyseQuery } from '@docqa/text';
import type { SearchHit, SearchIndex, SearchQuery, StoredChunk } from '@docqa/search';
import { StageTimes } from '../ask/stage-times';
import { UsageMeter } from '../ask/usage';
import { RetrievalService, SEVERAL_DOCUMENTS_PER_DOCUMENT } from './retrieval.service';

const chunk = (documentId: string, chunkIndex: number, text: string): StoredChunk => ({
  id: `${documentId}:${chunkIndex}`,
  accountId: 7,
  docSetName: 'd',
  documentId,
  fileName: `${documentId}.pdf`,
  pageNumber: String(chunkIndex + 1),
  sourceType: 'S3',
  sourceId: `k/${documentId}.pdf`,
  chunkIndex,
  text,
});

/** An engine stand-in that records the queries and answers with fixed hits, best first. */
function engine(hits: SearchHit[]): { index: SearchIndex; queries: SearchQuery[] } {
  const queries: SearchQuery[] = [];
  const index = {
    search: async (q: SearchQuery) => {
      queries.push(q);
      return hits.slice(0, q.limit);
    },
  } as unknown as SearchIndex;
  return { index, queries };
}

const HITS: SearchHit[] = [
  { chunk: chunk('a', 0, 'Intro to the handbook.'), score: 0.9 },
  { chunk: chunk('a', 1, 'The retention policy keeps copies for 30 days.'), score: 0.8 },
  { chunk: { ...chunk('b', 0, 'Retention of backups: 30 days of copies.'), section: 'Backups' }, score: 0.7 },
];

const request = (question: string, o: Partial<{ limit: number; pastMessages: any[] }> = {}) => ({
  accountId: 7,
  analysis: analyseQuery(question),
  docSetNames: ['d'],
  pastMessages: o.pastMessages ?? [],
  limit: o.limit ?? 2,
  minimumSimilarityScore: 0.1,
});

const trace = () => ({ usage: new UsageMeter(), stages: new StageTimes() });

describe('RetrievalService', () => {
  const embedder = new LocalHashingEmbedder({ dimensions: 32 });

  it('searches a keyword question as typed, embedded once, without the rewriter', async () => {
    const { index, queries } = engine(HITS);
    const t = trace();
    const r = await new RetrievalService(index, embedder, new LocalRewriter(), null).retrieve(
      request('  retention   policy '),
      t,
    );
    expect(r).toEqual({
      query: 'retention policy',
      rewritten: false,
      // The question's analysis, completed with the query searched.
      analysis: analyseQuery('  retention   policy ', 'retention policy'),
      hits: HITS.slice(0, 2),
      candidates: HITS.slice(0, 2).map((h) => h.chunk),
    });
    expect(queries).toEqual([
      {
        accountId: 7,
        docSetNames: ['d'],
        text: 'retention policy',
        vector: await embedder.embedQuery('retention policy'),
        limit: 2,
        minimumSimilarityScore: 0.1,
        fusion: { vectorWeight: embedder.recommendedVectorWeight },
        diversity: undefined,
      },
    ]);
    expect(t.usage.toUsage().perModel.map((m) => m.model)).toEqual([embedder.modelName]);
  });

  it('rewrites a question with history, asks the reranker 3x the limit (at least 20) and keeps its order and scores', async () => {
    const { index, queries } = engine(HITS);
    const reranker: Reranker = {
      model: 'r',
      rerank: async (input) => {
        expect(input.topN).toBe(2);
        // The reranker reads the analysis of the query it ranks for.
        expect(input.analysis).toEqual(analyseQuery('How long is it kept?', input.query));
        expect(input.documents).toHaveLength(3);
        // and each candidate's section (a statement page's label)
        expect(input.sections).toEqual([undefined, undefined, 'Backups']);
        return {
          results: [
            { index: 2, score: 0.6 },
            { index: 0, score: 0.5 },
          ],
          call: { model: 'r', inputTokens: 1, outputTokens: 0 },
        };
      },
    };
    const t = trace();
    const r = await new RetrievalService(index, embedder, new LocalRewriter(), reranker).retrieve(
      request('How long is it kept?', {
        pastMessages: [
          { role: 'user', content: 'Tell me about the retention policy' },
          { role: 'assistant', content: 'The retention policy keeps copies.' },
        ],
      }),
      t,
    );
    expect(r.rewritten).toBe(true);
    expect(r.query).toContain('How long is it kept?');
    expect(r.query).toContain('retention');
    expect(r.analysis).toEqual(analyseQuery('How long is it kept?', r.query));
    expect(queries[0]).toMatchObject({ text: r.query, limit: 20 });
    expect(r.hits).toEqual([
      { ...HITS[2], score: 0.6 },
      { ...HITS[0], score: 0.5 },
    ]);
    // The candidates the reranker chose from, for the reads around the passages.
    expect(r.candidates).toEqual(HITS.map((h) => h.chunk));
    expect(t.usage.toUsage().perModel.map((m) => m.model)).toEqual([
      'local-rewriter',
      embedder.modelName,
      'r',
    ]);
  });

  it('asks for diversity across documents for a compare question, also after reranking', async () => {
    const { index, queries } = engine(HITS);
    const r = await new RetrievalService(index, embedder, new LocalRewriter(), new LocalReranker()).retrieve(
      request('Compare the retention of a and b', { limit: 3 }),
      trace(),
    );
    expect(queries[0].diversity).toEqual({ perDocument: SEVERAL_DOCUMENTS_PER_DOCUMENT });
    expect(r.hits).toHaveLength(3);
    expect(new Set(r.hits.map((h) => h.chunk.id))).toEqual(new Set(HITS.map((h) => h.chunk.id)));
  });

  it('stops before searching when the caller is gone', async () => {
    const { index, queries } = engine(HITS);
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    await expect(
      new RetrievalService(index, embedder, new LocalRewriter(), null).retrieve(
        request('What is the retention policy?'),
        trace(),
        ac.signal,
      ),
    ).rejects.toThrow('gone');
    expect(queries).toHaveLength(0);
  });
});
