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
import { ChatPrompt, PromptCompletion, rewriteWith, titleWith } from '../grounded/conversation-prompts';
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

/** One OpenAI-compatible chat model behind a PromptCompletion. */
abstract class OpenAiChatTask {
  readonly model: string;
  protected readonly complete: PromptCompletion;

  constructor(o: OpenAiConnection) {
    const client = createOpenAiClient(o);
    this.model = o.model;
    this.complete = (what, prompt, maxTokens, signal) =>
      chat(client, o.model, what, prompt, maxTokens, signal);
  }
}

/**
 * The OpenAI-compatible model as query rewriter: the last turns (trimmed) and the question become
 * one standalone question. Without history the question already stands alone: no call is made.
 */
export class OpenAiRewriter extends OpenAiChatTask implements Rewriter {
  rewrite(input: RewriteInput): Promise<RewriteResult> {
    return rewriteWith(this.complete, 'Query rewriter', 80, input);
  }
}

/** The OpenAI-compatible model as conversation titler (the local title when it says nothing usable). */
export class OpenAiTitler extends OpenAiChatTask implements Titler {
  title(input: TitleInput): Promise<TitleResult> {
    return titleWith(this.complete, 'Title model', 30, input);
  }
}
