import type OpenAI from 'openai';
import {
  estimateTokens,
  ModelCall,
  RewriteInput,
  RewriteResult,
  Rewriter,
  TitleInput,
  TitleResult,
  Titler,
} from '../generation.port';
import {
  ChatPrompt,
  cleanTitle,
  firstLine,
  rewritePrompt,
  titlePrompt,
} from '../grounded/conversation-prompts';
import { callOpenAi, createOpenAiClient, OpenAiConnection } from './openai-client';

async function chat(
  client: OpenAI,
  model: string,
  what: string,
  prompt: ChatPrompt,
  maxTokens: number,
  signal?: AbortSignal,
): Promise<{ text: string; call: ModelCall }> {
  const r = await callOpenAi(what, signal, () =>
    client.chat.completions.create(
      {
        model,
        messages: [
          { role: 'system', content: prompt.system },
          { role: 'user', content: prompt.user },
        ],
        temperature: 0,
        max_tokens: maxTokens,
      },
      { signal },
    ),
  );
  const text = r.choices[0]?.message?.content ?? '';
  return {
    text,
    call: {
      model,
      inputTokens: r.usage?.prompt_tokens ?? estimateTokens(`${prompt.system}\n${prompt.user}`),
      outputTokens: r.usage?.completion_tokens ?? estimateTokens(text),
    },
  };
}

/**
 * The OpenAI-compatible model as query rewriter: the last turns (trimmed) and the question become
 * one standalone question. Without history the question already stands alone: no call is made.
 */
export class OpenAiRewriter implements Rewriter {
  readonly model: string;
  private readonly client: OpenAI;

  constructor(o: OpenAiConnection) {
    this.client = createOpenAiClient(o);
    this.model = o.model;
  }

  async rewrite(input: RewriteInput): Promise<RewriteResult> {
    const question = input.question.replace(/\s+/g, ' ').trim();
    if (input.history.length === 0) return { query: question };
    const r = await chat(this.client, this.model, 'Query rewriter', rewritePrompt(input), 80, input.signal);
    return { query: firstLine(r.text, 1000) ?? question, call: r.call };
  }
}

/** The OpenAI-compatible model as conversation titler (the local title when it says nothing usable). */
export class OpenAiTitler implements Titler {
  readonly model: string;
  private readonly client: OpenAI;

  constructor(o: OpenAiConnection) {
    this.client = createOpenAiClient(o);
    this.model = o.model;
  }

  async title(input: TitleInput): Promise<TitleResult> {
    const r = await chat(this.client, this.model, 'Title model', titlePrompt(input), 30, input.signal);
    return { title: cleanTitle(r.text, input.messages), call: r.call };
  }
}
