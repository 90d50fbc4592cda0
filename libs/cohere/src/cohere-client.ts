import { CohereClientV2 } from 'cohere-ai';

/** Cohere chat models `config.model` may name (the allow-list of the Cohere provider). */
export const COHERE_CHAT_MODELS = [
  'command-a-03-2025',
  'command-r7b-12-2024',
  'command-r-plus-08-2024',
  'command-r-08-2024',
  'command-r-plus',
  'command-r',
] as const;

export interface CohereConnection {
  apiKey: string;
  /** COHERE_BASE_URL; unset means Cohere's production endpoint. */
  baseUrl?: string;
  /** Attempts on 429/5xx/network errors (default 5). */
  maxAttempts?: number;
  /** First backoff delay (default 500 ms). */
  backoffMs?: number;
  timeoutSeconds?: number;
}

/** The official v2 client; retries are ours (withCohereRetry), so the SDK's own are turned off per call. */
export function createCohereClient(c: CohereConnection): CohereClientV2 {
  return new CohereClientV2({
    token: c.apiKey,
    ...(c.baseUrl ? { environment: c.baseUrl.replace(/\/+$/, '') } : {}),
    clientName: 'docqa',
  });
}

/** Tokens of a Cohere usage block: billed units when present, else the raw token counts. */
export function cohereTokens(usage?: {
  billedUnits?: { inputTokens?: number; outputTokens?: number };
  tokens?: { inputTokens?: number; outputTokens?: number };
}): { inputTokens: number; outputTokens: number } {
  return {
    inputTokens: Math.round(usage?.billedUnits?.inputTokens ?? usage?.tokens?.inputTokens ?? 0),
    outputTokens: Math.round(usage?.billedUnits?.outputTokens ?? usage?.tokens?.outputTokens ?? 0),
  };
}
