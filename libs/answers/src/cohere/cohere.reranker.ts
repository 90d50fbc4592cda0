import { Logger } from '@nestjs/common';
import type { CohereClientV2 } from 'cohere-ai';
import { CohereConnection, createCohereClient, withCohereRetry } from '@docqa/cohere';
import { estimateTokens, RerankInput, RerankResult, Reranker } from '../generation.port';

/**
 * Cohere v2 rerank. Rerank is billed in search units, not tokens; the usage report counts the
 * call with the query and documents' estimated tokens as input.
 */
export class CohereReranker implements Reranker {
  readonly model: string;
  private readonly client: CohereClientV2;
  private readonly log = new Logger('CohereReranker');

  constructor(private readonly o: CohereConnection & { model: string }) {
    this.client = createCohereClient(o);
    this.model = o.model;
  }

  async rerank(input: RerankInput): Promise<RerankResult> {
    if (input.documents.length === 0) return { results: [] };
    const r = await withCohereRetry(
      'Reranker',
      this.log,
      () =>
        this.client.rerank(
          {
            model: this.model,
            query: input.query,
            documents: input.documents,
            topN: Math.min(input.topN, input.documents.length),
          },
          { maxRetries: 0, timeoutInSeconds: this.o.timeoutSeconds ?? 30, abortSignal: input.signal },
        ),
      { maxAttempts: this.o.maxAttempts, backoffMs: this.o.backoffMs, signal: input.signal },
    );
    const results = r.results
      .filter((x) => Number.isInteger(x.index) && x.index >= 0 && x.index < input.documents.length)
      .map((x) => ({ index: x.index, score: x.relevanceScore }));
    const inputTokens = estimateTokens([input.query, ...input.documents].join('\n'));
    return { results, call: { model: this.model, inputTokens, outputTokens: 0 } };
  }
}
