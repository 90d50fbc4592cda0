import { Logger } from '@nestjs/common';
import type { CohereClientV2 } from 'cohere-ai';
import { CohereConnection, cohereTokens, createCohereClient, withCohereRetry } from '@docqa/cohere';
import type { TitleInput, TitleResult, Titler } from '../generation.port';
import { localTitle, MAX_TITLE_CHARS } from '../local/local.titler';
import { replyText } from './cohere.rewriter';

export const TITLE_INSTRUCTIONS =
  'Write a short, descriptive title (at most 8 words) for the conversation below. Reply with the title ' +
  'only, without quotes or a trailing period.';

/** Cohere chat as the conversation titler; an empty reply falls back to the local title. */
export class CohereTitler implements Titler {
  readonly model: string;
  private readonly client: CohereClientV2;
  private readonly log = new Logger('CohereTitler');

  constructor(private readonly o: CohereConnection & { model: string }) {
    this.client = createCohereClient(o);
    this.model = o.model;
  }

  async title(input: TitleInput): Promise<TitleResult> {
    const transcript = input.messages
      .slice(-10)
      .map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.content.slice(0, 2000)}`)
      .join('\n');
    const r = await withCohereRetry(
      'Title model',
      this.log,
      () =>
        this.client.chat(
          {
            model: this.model,
            messages: [
              { role: 'system', content: TITLE_INSTRUCTIONS },
              { role: 'user', content: transcript },
            ],
            temperature: 0.2,
            maxTokens: 30,
          },
          { maxRetries: 0, timeoutInSeconds: this.o.timeoutSeconds ?? 30, abortSignal: input.signal },
        ),
      { maxAttempts: this.o.maxAttempts, backoffMs: this.o.backoffMs, signal: input.signal },
    );
    let title = replyText(r)
      .split('\n')
      .map((l) => l.replace(/^(title:\s*)/i, '').replace(/^["'“”*#\s]+|["'“”*.\s]+$/g, ''))
      .find(Boolean);
    if (!title) title = localTitle(input.messages);
    if (title.length > MAX_TITLE_CHARS) title = `${title.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…`;
    return { title, call: { model: this.model, ...cohereTokens(r.usage) } };
  }
}
