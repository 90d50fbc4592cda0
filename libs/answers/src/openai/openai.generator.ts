import { Logger } from '@nestjs/common';
import type OpenAI from 'openai';
import { DomainError, ErrorCode } from '@docqa/common';
import {
  estimateTokens,
  GenerateInput,
  GenerationEvent,
  Generator,
  ModelCall,
  NO_ANSWER_TEXT,
  OPENAI_MODEL_ALIAS,
} from '../generation.port';
import {
  answerUserPrompt,
  citationJsonSchema,
  JSON_ANSWER_INSTRUCTIONS,
  selectPassages,
  systemPrompt,
} from '../grounded/grounded-prompt';
import { JsonAnswerReader } from './json-answer-reader';
import {
  callOpenAi,
  createOpenAiClient,
  isAbort,
  OpenAiConnection,
  openAiUnavailable,
} from './openai-client';

export interface OpenAiGeneratorOptions extends OpenAiConnection {
  /** PROMPT_TOKEN_BUDGET (counted as about four characters a token: the server's tokenizer is unknown). */
  promptTokenBudget: number;
  /** Most tokens of the JSON answer (default 600). */
  maxAnswerTokens?: number;
}

/**
 * Answers through an OpenAI-compatible chat completions API (OpenAI, vLLM, Ollama, llama.cpp
 * server, LM Studio). The output is constrained with structured outputs (`response_format`
 * json_schema, strict): a list of sentences, each with the number of a passage from the prompt
 * (an enum of exactly those numbers) and its text; an empty list is the not-found answer. The JSON
 * is read as it streams and turned into text with a marker after every sentence. A server that
 * ignores the schema fails the answer (503) rather than passing uncited text on.
 */
export class OpenAiGenerator implements Generator {
  readonly provider = 'openai' as const;
  readonly models: readonly string[];
  readonly defaultModel: string;
  private readonly client: OpenAI;
  private readonly log = new Logger('OpenAiGenerator');

  constructor(private readonly o: OpenAiGeneratorOptions) {
    this.client = createOpenAiClient(o);
    this.defaultModel = o.model;
    this.models = [...new Set([OPENAI_MODEL_ALIAS, o.model])];
  }

  async *generate(input: GenerateInput): AsyncIterable<GenerationEvent> {
    const passages = selectPassages(input.passages, {
      budgetTokens: this.o.promptTokenBudget,
      countTokens: estimateTokens,
      query: `${input.question} ${input.query}`,
    });
    if (passages.length === 0) {
      yield { type: 'text', text: NO_ANSWER_TEXT };
      return;
    }
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: systemPrompt(JSON_ANSWER_INSTRUCTIONS, input.promptContext) },
      { role: 'user', content: answerUserPrompt(input, passages) },
    ];
    const request = {
      model: this.o.model,
      messages,
      temperature: 0,
      max_tokens: this.o.maxAnswerTokens ?? 600,
      response_format: {
        type: 'json_schema' as const,
        json_schema: {
          name: 'cited_answer',
          strict: true,
          schema: citationJsonSchema(passages.map((p) => p.label)),
        },
      },
    };
    const reader = new JsonAnswerReader(passages);
    const what = 'Answer model';
    let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;

    if (input.stream === false) {
      const r = await callOpenAi(what, input.signal, () =>
        this.client.chat.completions.create({ ...request, stream: false }, { signal: input.signal }),
      );
      const text = reader.push(r.choices[0]?.message?.content ?? '') + reader.finish();
      this.assertFollowedSchema(reader);
      yield { type: 'text', text };
      yield { type: 'usage', call: this.call(messages, text, r.usage ?? undefined) };
      return;
    }

    const stream = await callOpenAi(what, input.signal, () =>
      this.client.chat.completions.create(
        { ...request, stream: true, stream_options: { include_usage: true } },
        { signal: input.signal },
      ),
    );
    let answer = '';
    try {
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const delta = chunk.choices?.[0]?.delta?.content;
        if (!delta) continue;
        const out = reader.push(delta);
        if (out) {
          answer += out;
          yield { type: 'text', text: out };
        }
      }
    } catch (err) {
      if (isAbort(err, input.signal)) throw input.signal?.reason ?? err;
      throw openAiUnavailable(err, what);
    } finally {
      // Leaving early (the caller went away, or failed) closes the HTTP response.
      stream.controller.abort();
    }
    // The client's stream ends quietly when its signal aborts: the caller must still see the abort.
    if (input.signal?.aborted) throw input.signal.reason;
    const rest = reader.finish();
    this.assertFollowedSchema(reader);
    if (rest) {
      answer += rest;
      yield { type: 'text', text: rest };
    }
    yield { type: 'usage', call: this.call(messages, answer, usage) };
  }

  private assertFollowedSchema(reader: JsonAnswerReader): void {
    if (reader.followedSchema) return;
    this.log.warn(
      'the OpenAI-compatible server did not answer with the requested JSON schema (response_format json_schema); ' +
        'use a server and model that support structured outputs',
    );
    throw new DomainError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Answer model did not return a cited answer');
  }

  private call(
    messages: OpenAI.Chat.ChatCompletionMessageParam[],
    answer: string,
    usage?: { prompt_tokens?: number; completion_tokens?: number },
  ): ModelCall {
    return {
      model: this.o.model,
      inputTokens: usage?.prompt_tokens ?? estimateTokens(messages.map((m) => String(m.content)).join('\n')),
      outputTokens: usage?.completion_tokens ?? estimateTokens(answer),
    };
  }
}
