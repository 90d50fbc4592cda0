import { Logger } from '@nestjs/common';
import { CohereClientV2 } from 'cohere-ai';
import { DomainError, ErrorCode } from '@docqa/common';
import { withCohereRetry } from '@docqa/cohere';
import type { Embedder, EmbedOptions } from './embedder.port';

/** Cohere's limit of texts per embed call. */
export const COHERE_EMBED_BATCH = 96;

/** Output sizes of Cohere's embedding models (embed-v4.0 at its default output dimension). */
export const COHERE_EMBED_DIMENSIONS: Record<string, number> = {
  'embed-english-v3.0': 1024,
  'embed-multilingual-v3.0': 1024,
  'embed-english-light-v3.0': 384,
  'embed-multilingual-light-v3.0': 384,
  'embed-v4.0': 1536,
};

export interface CohereEmbedderOptions {
  apiKey: string;
  model: string;
  /** COHERE_BASE_URL; unset means Cohere's production endpoint. */
  baseUrl?: string;
  /** Attempts per batch on 429/5xx/network errors (default 5). */
  maxAttempts?: number;
  /** First backoff delay; doubles each attempt with jitter (default 500 ms, capped at 20 s). */
  backoffMs?: number;
  timeoutSeconds?: number;
}

/** Cohere v2 embed through the official SDK, batched and retried with exponential backoff (withCohereRetry). */
export class CohereEmbedder implements Embedder {
  readonly modelName: string;
  readonly dimensions: number;
  readonly recommendedVectorWeight = 1;
  private readonly client: CohereClientV2;
  private readonly log = new Logger('CohereEmbedder');

  constructor(private readonly o: CohereEmbedderOptions) {
    const dims = COHERE_EMBED_DIMENSIONS[o.model];
    if (!dims) {
      throw new Error(
        `COHERE_EMBED_MODEL "${o.model}" is not a known embedding model (${Object.keys(COHERE_EMBED_DIMENSIONS).join(', ')})`,
      );
    }
    this.modelName = o.model;
    this.dimensions = dims;
    this.client = new CohereClientV2({
      token: o.apiKey,
      ...(o.baseUrl ? { environment: o.baseUrl.replace(/\/+$/, '') } : {}),
      clientName: 'docqa',
    });
  }

  async embedDocuments(texts: string[], o: EmbedOptions = {}): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += COHERE_EMBED_BATCH) {
      o.signal?.throwIfAborted();
      out.push(
        ...(await this.embedBatch(texts.slice(i, i + COHERE_EMBED_BATCH), 'search_document', o.signal)),
      );
    }
    return out;
  }

  async embedQuery(text: string, o: EmbedOptions = {}): Promise<number[]> {
    const [v] = await this.embedBatch([text], 'search_query', o.signal);
    return v;
  }

  private async embedBatch(
    texts: string[],
    inputType: 'search_document' | 'search_query',
    signal?: AbortSignal,
  ): Promise<number[][]> {
    if (texts.length === 0) return [];
    return withCohereRetry(
      'Embedding provider',
      this.log,
      async () => {
        const r = await this.client.embed(
          { model: this.o.model, texts, inputType, embeddingTypes: ['float'], truncate: 'END' },
          { maxRetries: 0, timeoutInSeconds: this.o.timeoutSeconds ?? 60, abortSignal: signal },
        );
        const vectors = r.embeddings.float;
        if (
          !vectors ||
          vectors.length !== texts.length ||
          vectors.some((v) => v.length !== this.dimensions)
        ) {
          throw new DomainError(
            ErrorCode.DEPENDENCY_UNAVAILABLE,
            'Embedding provider returned malformed vectors',
          );
        }
        return vectors;
      },
      { maxAttempts: this.o.maxAttempts, backoffMs: this.o.backoffMs, signal },
    );
  }
}
