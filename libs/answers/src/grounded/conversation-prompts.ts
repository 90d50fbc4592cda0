import type {
  ChatTurn,
  ModelCall,
  RewriteInput,
  RewriteResult,
  TitleInput,
  TitleResult,
} from '../generation.port';
import { localTitle, MAX_TITLE_CHARS } from '../local/local.titler';
import { turnText } from './grounded-prompt';

/** Chat messages for a generic chat model (system + user). */
export interface ChatPrompt {
  system: string;
  user: string;
}

export const REWRITE_PROMPT =
  "Rewrite the user's latest question as one standalone question that can be understood without the " +
  'conversation: resolve what "it", "that" or "the two" refer to. Keep names, commands and option names ' +
  'exactly. Reply with the question only, on one line.';

export const TITLE_PROMPT =
  'Write a short, descriptive title (at most 8 words) for the conversation below. Reply with the title ' +
  'only, on one line, without quotes or a trailing period.';

/** Turns of history a rewrite looks at (newest), and characters kept of each. */
const REWRITE_TURNS = 4;
const REWRITE_TURN_CHARS = 400;

/**
 * The rewrite prompt: the last few turns, each trimmed (an assistant answer can be pages long), then
 * the question. This is how the conversation reaches the answer: as one standalone question.
 */
export function rewritePrompt(input: RewriteInput): ChatPrompt {
  const turns = input.history.slice(-REWRITE_TURNS).map(transcriptLine(REWRITE_TURN_CHARS));
  const system = input.promptContext?.trim()
    ? `${REWRITE_PROMPT}\n\nContext from the application: ${input.promptContext.trim()}`
    : REWRITE_PROMPT;
  return {
    system,
    user: `Conversation:\n${turns.join('\n')}\n\nLatest question: ${input.question.replace(/\s+/g, ' ').trim()}`,
  };
}

export function titlePrompt(input: TitleInput): ChatPrompt {
  return { system: TITLE_PROMPT, user: input.messages.slice(-6).map(transcriptLine(500)).join('\n') };
}

function transcriptLine(max: number) {
  return (t: ChatTurn) => `${t.role === 'user' ? 'User' : 'Assistant'}: ${turnText(t, max)}`;
}

/** The first non-empty line of a reply without quotes around it, at most `max` characters. */
export function firstLine(reply: string, max: number): string | undefined {
  const line = reply
    .split('\n')
    .map((l) => l.replace(/^\s*(?:standalone(?: question| query)?|question|query)\s*:\s*/i, ''))
    .map((l) => l.replace(/^["'“”\s]+|["'“”\s]+$/g, ''))
    .find(Boolean);
  return line ? line.slice(0, max) : undefined;
}

/** A model's title reply cleaned up, or the local title when it said nothing usable. */
export function cleanTitle(reply: string, messages: TitleInput['messages']): string {
  let title = reply
    .split('\n')
    .map((l) => l.replace(/^(title:\s*)/i, '').replace(/^["'“”*#\s]+|["'“”*.\s]+$/g, ''))
    .find(Boolean);
  if (!title) title = localTitle(messages);
  if (title.length > MAX_TITLE_CHARS) title = `${title.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…`;
  return title;
}

/** One short completion of a chat model (a provider's adapter): the reply and what the call used. */
export type PromptCompletion = (
  what: string,
  prompt: ChatPrompt,
  maxTokens: number,
  signal?: AbortSignal,
) => Promise<{ text: string; call: ModelCall }>;

/**
 * Query rewrite on a chat model: with history, the last turns (trimmed) and the question become one
 * standalone question; without history the question already stands alone and no call is made.
 */
export async function rewriteWith(
  complete: PromptCompletion,
  what: string,
  maxTokens: number,
  input: RewriteInput,
): Promise<RewriteResult> {
  const question = input.question.replace(/\s+/g, ' ').trim();
  if (input.history.length === 0) return { query: question };
  const r = await complete(what, rewritePrompt(input), maxTokens, input.signal);
  return { query: firstLine(r.text, 1000) ?? question, call: r.call };
}

/** Conversation title on a chat model (the local title when it says nothing usable). */
export async function titleWith(
  complete: PromptCompletion,
  what: string,
  maxTokens: number,
  input: TitleInput,
): Promise<TitleResult> {
  const r = await complete(what, titlePrompt(input), maxTokens, input.signal);
  return { title: cleanTitle(r.text, input.messages), call: r.call };
}
