import { estimateTokens, LOCAL_MODELS, TitleInput, TitleResult, Titler } from '../generation.port';
import { STOP_WORDS, words } from '@docqa/text';
import { isIdentifierLike, surfaceTokens } from './text';

/** Longest title in characters. */
export const MAX_TITLE_CHARS = 60;
const MAX_TITLE_WORDS = 8;

/** Leading phrases that say a question is asked, not what it is about. */
const QUESTION_OPENERS =
  /^(?:(?:please|hi|hello|hey)[,!]?\s+)*(?:(?:can|could|would|will) you (?:please )?(?:tell me |explain |show me |help me (?:to )?)?|i (?:want|need|would like|'d like) to (?:know )?|i'm trying to |how (?:do|can|should|would) (?:i|we|you|one) |how to |what (?:is|are|was|were|does|do) (?:the |a |an )?|which (?:is|are) (?:the )?|why (?:do|does|is|are|would|should) |when (?:do|does|should|is) |where (?:do|does|is|can) (?:i )?|is there (?:a |an |any )?|are there (?:any )?|tell me (?:about )?|explain )/i;

/**
 * Deterministic titler: the first question of the conversation, without its question opener
 * ("How do I", "What is the") and trailing punctuation, when that is short; otherwise its most
 * salient words (identifiers, capitalised and long words) in their original order. At most
 * eight words and 60 characters, first letter capitalised.
 */
export class LocalTitler implements Titler {
  readonly model = LOCAL_MODELS.titler;

  async title(input: TitleInput): Promise<TitleResult> {
    const title = localTitle(input.messages);
    const inputTokens = estimateTokens(input.messages.map((m) => m.content).join('\n'));
    return { title, call: { model: this.model, inputTokens, outputTokens: estimateTokens(title) } };
  }
}

export function localTitle(messages: Array<{ role: string; content: string }>): string {
  const firstUser =
    messages.find((m) => m.role === 'user' && m.content.trim()) ?? messages.find((m) => m.content.trim());
  if (!firstUser) return 'New conversation';
  const sentence = (
    firstUser.content.split(/(?<=[.?!])\s+/).find((s) => words(s).length > 0) ?? firstUser.content
  )
    .replace(/\s+/g, ' ')
    .trim();
  let stripped = sentence;
  for (let i = 0; i < 3; i++) {
    const next = stripped.replace(QUESTION_OPENERS, '');
    if (next === stripped) break;
    stripped = next;
  }
  stripped = stripped.replace(/[?.!,;:\s]+$/, '').trim();
  const tokens = surfaceTokens(stripped);
  let title: string;
  if (tokens.length > 0 && tokens.length <= MAX_TITLE_WORDS) {
    title = stripped;
  } else {
    const salient = tokens
      .map((t, i) => ({ t, i, s: salience(t, i) }))
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, 6)
      .sort((a, b) => a.i - b.i)
      .map((x) => x.t);
    title = salient.length ? salient.join(' ') : tokens.slice(0, MAX_TITLE_WORDS).join(' ');
  }
  if (!title) title = 'New conversation';
  if (title.length > MAX_TITLE_CHARS) {
    const cut = title.lastIndexOf(' ', MAX_TITLE_CHARS - 1);
    title = title.slice(0, cut > 20 ? cut : MAX_TITLE_CHARS - 1).trimEnd() + '…';
  }
  return title.charAt(0).toUpperCase() + title.slice(1);
}

function salience(token: string, index: number): number {
  const ws = words(token);
  if (ws.length === 0 || ws.every((w) => STOP_WORDS.has(w))) return 0;
  let s = 1;
  if (isIdentifierLike(token)) s += 3;
  if (index > 0 && /^\p{Lu}/u.test(token)) s += 2;
  if (token.length >= 7) s += 1;
  return s;
}
