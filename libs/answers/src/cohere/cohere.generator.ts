import { Logger } from '@nestjs/common';
import type { Cohere, CohereClientV2 } from 'cohere-ai';
import { DomainError, ErrorCode } from '@docqa/common';
import {
  COHERE_CHAT_MODELS,
  CohereConnection,
  cohereTokens,
  cohereUnavailable,
  createCohereClient,
  isAbortError,
  withCohereRetry,
} from '@docqa/cohere';
import type { GenerateInput, GenerationEvent, Generator } from '../generation.port';
import { citedSpan, placeMarkers, StreamingMarkerPlacer } from './cohere-citations';

export interface CohereGeneratorOptions extends CohereConnection {
  /** COHERE_CHAT_MODEL: the default chat model. */
  model: string;
}

export const ANSWER_INSTRUCTIONS =
  "You answer questions about the user's documents. Use only the provided documents. Be concise and " +
  'specific: quote option names, commands and values exactly as the documents give them. If the documents ' +
  'do not contain the answer, say that you could not find it in the documents instead of guessing.';

/** Chat messages of an answer: instructions (+ promptContext), the history, then the question. */
export function answerMessages(input: GenerateInput): Cohere.ChatMessages {
  const system = input.promptContext
    ? `${input.promptContext.trim()}\n\n${ANSWER_INSTRUCTIONS}`
    : ANSWER_INSTRUCTIONS;
  return [
    { role: 'system', content: system },
    ...input.history.map((t) => ({ role: t.role, content: t.content }) as Cohere.ChatMessageV2),
    { role: 'user', content: input.question },
  ];
}

/**
 * Cohere v2 chat with documents (retrieval-augmented generation). Each passage is sent as a
 * document whose id is its number, so Cohere's citations (spans of the answer with their source
 * documents) become `[n]` markers after the cited text. Streaming uses chatStream; the retry
 * policy (withCohereRetry) applies until the response starts, never mid-stream.
 */
export class CohereGenerator implements Generator {
  readonly provider = 'cohere' as const;
  readonly models: readonly string[];
  readonly defaultModel: string;
  private readonly client: CohereClientV2;
  private readonly log = new Logger('CohereGenerator');

  constructor(private readonly o: CohereGeneratorOptions) {
    this.client = createCohereClient(o);
    this.defaultModel = o.model;
    this.models = [...new Set<string>([o.model, ...COHERE_CHAT_MODELS])];
  }

  async *generate(input: GenerateInput): AsyncIterable<GenerationEvent> {
    const model = input.model ?? this.defaultModel;
    const request = {
      model,
      messages: answerMessages(input),
      documents: input.passages.map((p) => ({
        id: String(p.n),
        data: { title: `${p.fileName}, page ${p.pageNumber}`, snippet: p.text },
      })),
      temperature: 0.3,
    };
    const requestOptions = {
      maxRetries: 0,
      timeoutInSeconds: this.o.timeoutSeconds ?? 120,
      abortSignal: input.signal,
    };
    const retry = { maxAttempts: this.o.maxAttempts, backoffMs: this.o.backoffMs, signal: input.signal };

    if (input.stream === false) {
      const r = await withCohereRetry(
        'Answer model',
        this.log,
        () => this.client.chat(request, requestOptions),
        retry,
      );
      const text = (r.message.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
      const spans = (r.message.citations ?? []).flatMap((c) => citedSpan(c, input.passages) ?? []);
      yield { type: 'text', text: placeMarkers(text, spans) };
      yield { type: 'usage', call: { model, ...cohereTokens(r.usage) } };
      return;
    }

    const stream = await withCohereRetry(
      'Answer model',
      this.log,
      () => this.client.chatStream(request, requestOptions),
      retry,
    );
    const placer = new StreamingMarkerPlacer();
    let usage: ReturnType<typeof cohereTokens> | undefined;
    try {
      for await (const event of stream) {
        if (event.type === 'content-delta') {
          const out = placer.pushText(event.delta?.message?.content?.text ?? '');
          if (out) yield { type: 'text', text: out };
        } else if (event.type === 'citation-start') {
          const c = event.delta?.message?.citations;
          const span = c ? citedSpan(c, input.passages) : undefined;
          if (span) placer.pushCitation(span);
        } else if (event.type === 'message-end') {
          if (event.delta?.error) {
            throw new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Answer model failed mid-answer');
          }
          usage = cohereTokens(event.delta?.usage);
        }
      }
    } catch (err) {
      if (isAbortError(err, input.signal)) throw err;
      throw cohereUnavailable(err, 'Answer model');
    }
    if (input.signal?.aborted) throw input.signal.reason;
    if (!usage) throw new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Answer model stream ended early');
    const rest = placer.flush();
    if (rest) yield { type: 'text', text: rest };
    yield { type: 'usage', call: { model, ...usage } };
  }
}
