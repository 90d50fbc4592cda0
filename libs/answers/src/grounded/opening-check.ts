import { contentStems } from '@docqa/text';

/** Words of a local model answer read before any is released (LLM_OPENING_CHECK). */
export const OPENING_CHECK_WORDS = 6;

/** The distinct content stems of a text, its `[n]` markers left out. */
export function stemsWithoutMarkers(text: string): Set<string> {
  return new Set(contentStems(text.replace(/\[\d+\]/g, ' ')));
}

/**
 * Holds the start of a local model's answer (text already with its markers, from
 * CitedAnswerStream) until its first `words` words are written, then either lets it through or
 * replaces the whole answer by `fallback`, the extractive answer from the same passages
 * (chosenEvidence). It is replaced when those words use none of the question's words (content
 * stems of the question and its rewritten query): the 1.5B model, given the right passages, often
 * restates a passage's opening line instead of the line that answers ("This manual describes the
 * tool's features ..." for "how do I clear the cache?"); an opening that shares no word
 * with the question is that, and the model is stopped there (`replaced`). Held, not streamed: a
 * released word cannot be taken back. Only the first words are held (about one second of the
 * model's writing on 2 cores), so the first delta stays within its target (the evaluation history in git (bench/eval/changes.md before 2026-12-04),
 * round twenty-four). An answer shorter than `words` is judged when it ends (`finish`).
 */
export class OpeningCheck {
  private held = '';
  private verdict: 'pass' | 'replace' | undefined;

  /**
   * The check of an answer to `question`, or undefined where it does not apply: when the
   * extractive answer (`fallback`) uses no word of the question either, an opening that uses none
   * says nothing about the answer, and the model's answer stands.
   */
  static when(question: string, fallback: string, words = OPENING_CHECK_WORDS): OpeningCheck | undefined {
    const asked = stemsWithoutMarkers(question);
    const applies = [...stemsWithoutMarkers(fallback)].some((t) => asked.has(t));
    return applies ? new OpeningCheck(asked, fallback, words) : undefined;
  }

  private constructor(
    private readonly asked: ReadonlySet<string>,
    private readonly fallback: string,
    private readonly words: number,
  ) {}

  /** Whether the answer was replaced: the model's generation may stop. */
  get replaced(): boolean {
    return this.verdict === 'replace';
  }

  /** Answer text; returns what may be released now. */
  push(text: string): string {
    if (this.verdict === 'pass') return text;
    if (this.verdict === 'replace') return '';
    this.held += text;
    // Words followed by a space are whole; the last may still grow.
    const whole =
      this.held
        .replace(/\[\d+\]/g, ' ')
        .trimStart()
        .split(/\s+/).length - 1;
    return whole >= this.words ? this.decide() : '';
  }

  /** The rest of the answer text; returns all that is left to release. */
  finish(text = ''): string {
    if (this.verdict === undefined) {
      this.held += text;
      return this.decide();
    }
    return this.push(text);
  }

  private decide(): string {
    const opening = this.held;
    this.held = '';
    const uses = [...stemsWithoutMarkers(opening)].some((t) => this.asked.has(t));
    this.verdict = uses || !opening.trim() ? 'pass' : 'replace';
    return this.verdict === 'pass' ? opening : this.fallback;
  }
}
