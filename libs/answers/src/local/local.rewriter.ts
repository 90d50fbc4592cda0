import {
  ChatTurn,
  estimateTokens,
  LOCAL_MODELS,
  RewriteInput,
  RewriteResult,
  Rewriter,
} from '../generation.port';
import { stem, STOP_WORDS, words } from '@docqa/text';
import { isIdentifierLike, surfaceTokens } from './text';

export interface LocalRewriterOptions {
  /** Most subject terms folded into the question (default 6). */
  maxTerms?: number;
  /** Turns of history looked at, newest first (default 4). */
  turns?: number;
}

interface Scored {
  term: string;
  score: number;
  first: number;
}

/**
 * Deterministic rewriter: folds the subject of the conversation into the question, so a follow-up
 * like "What is its upper limit?" is searched together with what "it" was ("max_connections",
 * "PostgreSQL"). Subject terms come from the latest turns (newer weigh more): identifiers (`\section`,
 * `max_connections`, `HttpClient`) first, then words the user and the assistant both used, then
 * other capitalised or long words; terms the question already has are skipped. Without history
 * the query is the question with its whitespace collapsed.
 */
export class LocalRewriter implements Rewriter {
  readonly model = LOCAL_MODELS.rewriter;
  private readonly maxTerms: number;
  private readonly turns: number;

  constructor(o: LocalRewriterOptions = {}) {
    this.maxTerms = o.maxTerms ?? 6;
    this.turns = o.turns ?? 4;
  }

  async rewrite(input: RewriteInput): Promise<RewriteResult> {
    const question = input.question.replace(/\s+/g, ' ').trim();
    const subject = subjectTerms(question, input.history.slice(-this.turns), this.maxTerms);
    const query = subject.length ? `${question} ${subject.join(' ')}` : question;
    const seen = [input.question, ...input.history.slice(-this.turns).map((t) => t.content)].join('\n');
    return {
      query,
      call: { model: this.model, inputTokens: estimateTokens(seen), outputTokens: estimateTokens(query) },
    };
  }
}

/** The history's subject terms missing from the question, most salient first. */
export function subjectTerms(question: string, history: ChatTurn[], max: number): string[] {
  const asked = new Set(words(question).map(stem));
  const scores = new Map<string, Scored>();
  const userStems = new Set(
    history.filter((t) => t.role === 'user').flatMap((t) => words(t.content).map(stem)),
  );
  const assistantStems = new Set(
    history.filter((t) => t.role === 'assistant').flatMap((t) => words(t.content).map(stem)),
  );
  let position = 0;
  history.forEach((turn, i) => {
    const recency = 1 + i / Math.max(1, history.length); // later turns weigh more
    const tokens = surfaceTokens(turn.content);
    tokens.forEach((token, at) => {
      position++;
      const ws = words(token);
      if (ws.length === 0) return;
      const key = ws.join(' ');
      const stems = ws.map(stem);
      if (ws.every((w) => STOP_WORDS.has(w) || w.length < 3 || /^\d+$/.test(w))) return;
      if (stems.every((s) => asked.has(s))) return;
      let score = 0;
      if (isIdentifierLike(token)) score += 3;
      if (stems.some((s) => userStems.has(s) && assistantStems.has(s))) score += 2;
      if (turn.role === 'user') score += 1;
      if (at > 0 && /^\p{Lu}/u.test(token) && !/[.!?]$/.test(tokens[at - 1] ?? '')) score += 1;
      if (key.length >= 7) score += 0.5;
      score *= recency;
      const prev = scores.get(key);
      if (prev) prev.score += score * 0.5;
      else scores.set(key, { term: cleanTerm(token), score, first: position });
    });
  });
  return [...scores.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, max)
    .map((s) => s.term);
}

/** A term as it is searched: no trailing punctuation or quotes, `\` kept for LaTeX commands. */
function cleanTerm(token: string): string {
  return token.replace(/[“”"'`]/g, '').replace(/[.,;:!?)]+$/, '');
}
