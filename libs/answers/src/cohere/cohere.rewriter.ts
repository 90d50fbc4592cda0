import { Logger } from '@nestjs/common';
import type { Cohere, CohereClientV2 } from 'cohere-ai';
import { CohereConnection, cohereTokens, createCohereClient, withCohereRetry } from '@docqa/cohere';
import type { RewriteInput, RewriteResult, Rewriter } from '../generation.port';

export const REWRITE_INSTRUCTIONS =
  "Rewrite the user's latest question as one standalone search query for a document search engine. " +
  'Use the conversation only to resolve what the question refers to. Keep names, commands and option ' +
  'names exactly. Reply with the query only, on one line, without quotes or explanations.';

/** The text of a Cohere chat reply (text content items joined). */
export function replyText(r: Cohere.V2ChatResponse): string {
  return (r.message.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** Cohere chat as the query rewriter: history + promptContext + question -> one standalone query. */
export class CohereRewriter implements Rewriter {
  readonly model: string;
  private readonly client: CohereClientV2;
  private readonly log = new Logger('CohereRewriter');

  constructor(private readonly o: CohereConnection & { model: string }) {
    this.client = createCohereClient(o);
    this.model = o.model;
  }

  async rewrite(input: RewriteInput): Promise<RewriteResult> {
    const system = input.promptContext
      ? `${REWRITE_INSTRUCTIONS}\n\nContext from the application: ${input.promptContext.trim()}`
      : REWRITE_INSTRUCTIONS;
    const transcript = input.history.map((t) => `${t.role === 'user' ? 'User' : 'Assistant'}: ${t.content}`);
    const r = await withCohereRetry(
      'Query rewriter',
      this.log,
      () =>
        this.client.chat(
          {
            model: this.model,
            messages: [
              { role: 'system', content: system },
              {
                role: 'user',
                content: `${transcript.length ? `Conversation:\n${transcript.join('\n')}\n\n` : ''}Latest question: ${input.question}`,
              },
            ],
            temperature: 0,
          },
          { maxRetries: 0, timeoutInSeconds: this.o.timeoutSeconds ?? 30, abortSignal: input.signal },
        ),
      { maxAttempts: this.o.maxAttempts, backoffMs: this.o.backoffMs, signal: input.signal },
    );
    const line = replyText(r)
      .split('\n')
      .map((l) => l.replace(/^["'“”\s]+|["'“”\s]+$/g, ''))
      .find(Boolean);
    return {
      query: line ? line.slice(0, 1000) : input.question.trim(),
      call: { model: this.model, ...cohereTokens(r.usage) },
    };
  }
}
