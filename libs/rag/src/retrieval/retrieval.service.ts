import { Inject, Injectable } from '@nestjs/common';
import { type QueryAnalysis, withSearchQuery } from '@docqa/text';
import { EMBEDDER, Embedder } from '@docqa/embeddings';
import { ChatTurn, estimateTokens, RERANKER, Reranker, REWRITER, Rewriter } from '@docqa/answers';
import {
  diversify,
  evaluateKeywordRouting,
  SEARCH_INDEX,
  SearchHit,
  SearchIndex,
  StoredChunk,
} from '@docqa/search';
import { rerankDocument } from '../ask/chunk-context';
import { StageTimes } from '../ask/stage-times';
import { UsageMeter } from '../ask/usage';

/**
 * List and compare questions (QueryAnalysis.scope) keep at most this many chunks of one document ahead
 * of other documents' chunks, in the search results and in the passages after reranking.
 */
export const SEVERAL_DOCUMENTS_PER_DOCUMENT = 2;

/** Chunks fetched for the reranker per chunk it keeps (bounded by RERANK_MAX_CANDIDATES). */
const RERANK_DEPTH = 3;
const RERANK_MAX_CANDIDATES = 100;

/** What to retrieve for: the question as the caller asked it, over docsets already authorised. */
export interface RetrievalRequest {
  accountId: number;
  /** The caller's analysis of the question (analyseQuery(question)), made once per ask. */
  analysis: QueryAnalysis;
  docSetNames: string[];
  pastMessages: ChatTurn[];
  promptContext?: string;
  /** Hits returned, best first. */
  limit: number;
  minimumSimilarityScore: number;
}

export interface Retrieval {
  /** What was searched: the question as typed (keyword route) or the rewriter's standalone query. */
  query: string;
  /** Whether the rewriter made the query (false: keyword routing skipped it). */
  rewritten: boolean;
  /** The request's analysis completed with `query`: what the answerer reads of the question. */
  analysis: QueryAnalysis;
  /**
   * Best first, at most `limit`. `score` is the reranker's relevance (0..1) when a reranker ranked
   * them, else the engine's fused score.
   */
  hits: SearchHit[];
  /**
   * Every chunk the engine returned, the hits among them: the reranker's candidates when one is
   * configured. What an ask reads around its passages is looked up here first.
   */
  candidates: StoredChunk[];
}

/** Where a retrieval adds its model calls and step times (the ask's usage and log line). */
export interface RetrievalTrace {
  usage: UsageMeter;
  stages: StageTimes;
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/**
 * The retrieval of /ask and /search, one definition: keyword routing, the rewriter (history +
 * promptContext -> one standalone query) unless the route skips it, the query embedded once,
 * hybrid search (BM25 + kNN, document routing; diversity across documents for list and compare
 * questions), then the optional reranker. One engine read.
 */
@Injectable()
export class RetrievalService {
  constructor(
    @Inject(SEARCH_INDEX) private readonly index: SearchIndex,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(REWRITER) private readonly rewriter: Rewriter,
    @Inject(RERANKER) private readonly reranker: Reranker | null,
  ) {}

  async retrieve(r: RetrievalRequest, trace: RetrievalTrace, signal?: AbortSignal): Promise<Retrieval> {
    const { usage, stages } = trace;
    const question = r.analysis.question;
    const routing = evaluateKeywordRouting(question, {
      hasHistory: r.pastMessages.length > 0,
      hasPromptContext: !!r.promptContext?.trim(),
    });
    let query = routing.query;
    if (!routing.skipsRewriter) {
      const rw = await this.rewriter.rewrite({
        question,
        history: r.pastMessages,
        promptContext: r.promptContext,
        signal,
      });
      usage.add(rw.call);
      query = rw.query.trim() || routing.query;
      stages.lap('rewrite');
    }
    throwIfAborted(signal);

    const analysis = withSearchQuery(r.analysis, query);

    const vector = await this.embedder.embedQuery(query);
    stages.lap('embed');
    usage.add({ model: this.embedder.modelName, inputTokens: estimateTokens(query), outputTokens: 0 });
    throwIfAborted(signal);

    const { hits, candidates } = await this.search(r, analysis, vector, trace, signal);
    throwIfAborted(signal);
    return { query, rewritten: !routing.skipsRewriter, analysis, hits, candidates };
  }

  private async search(
    r: RetrievalRequest,
    analysis: QueryAnalysis,
    vector: number[],
    { usage, stages }: RetrievalTrace,
    signal?: AbortSignal,
  ): Promise<{ hits: SearchHit[]; candidates: StoredChunk[] }> {
    const { query } = analysis;
    const limit = r.limit;
    const depth = this.reranker ? Math.min(Math.max(limit * RERANK_DEPTH, 20), RERANK_MAX_CANDIDATES) : limit;
    const diversity =
      analysis.scope === 'single' ? undefined : { perDocument: SEVERAL_DOCUMENTS_PER_DOCUMENT };
    const hits = await this.index.search({
      accountId: r.accountId,
      docSetNames: r.docSetNames,
      text: query,
      vector,
      limit: depth,
      minimumSimilarityScore: r.minimumSimilarityScore,
      fusion: { vectorWeight: this.embedder.recommendedVectorWeight },
      diversity,
    });
    stages.lap('search');
    const candidates = hits.map((h) => h.chunk);
    if (!this.reranker || hits.length === 0) return { hits: hits.slice(0, limit), candidates };
    throwIfAborted(signal);
    const rr = await this.reranker.rerank({
      query,
      analysis,
      documents: hits.map((h) => rerankDocument(h.chunk)),
      sections: hits.map((h) => h.chunk.section),
      topN: diversity ? hits.length : limit,
      signal,
    });
    usage.add(rr.call);
    const reranked = rr.results.map((x) => ({ ...hits[x.index], score: x.score }));
    const ordered = diversity
      ? diversify(reranked, (h) => h.chunk.documentId, diversity.perDocument)
      : reranked;
    stages.lap('rerank');
    return { hits: ordered.slice(0, limit), candidates };
  }
}
