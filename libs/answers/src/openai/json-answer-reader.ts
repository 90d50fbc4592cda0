import { partialParse } from 'openai/_vendor/partial-json-parser/parser';
import { CitedAnswerStream } from '../grounded/cited-answer-stream';
import type { PromptPassage } from '../grounded/grounded-prompt';

interface SentenceLike {
  passage?: unknown;
  text?: unknown;
}

/** Bracketed numbers in model text would read as markers: `[12]` -> `(12)`, a lone `[1` -> `(1`. */
function escapeText(text: string): string {
  return text.replace(/\[(\d+)\]/g, '($1)').replace(/\[(?=\d)/g, '(');
}

/**
 * Reads a structured answer (`{"sentences": [{"passage": 2, "text": "..."}]}`) as it streams. The
 * JSON so far is parsed leniently (the partial JSON parser the openai client ships), written out
 * as the marker-first form `[2] text [1] text` that CitedAnswerStream reads, and only what is new
 * is passed on, so sentence text streams as the model writes it. A sentence is taken once its
 * passage number is complete; `passage` precedes `text` in the schema for that reason.
 */
export class JsonAnswerReader {
  private content = '';
  private written = '';
  private readonly answer: CitedAnswerStream;
  private parsedOnce = false;

  constructor(passages: readonly PromptPassage[]) {
    this.answer = new CitedAnswerStream(passages);
  }

  /** Model content; returns answer text to release now. */
  push(delta: string): string {
    this.content += delta;
    return this.write(this.parse(false), false);
  }

  /** The end of the content: the rest of the answer. */
  finish(): string {
    const out = this.write(this.parse(true), true);
    return out + this.answer.finish();
  }

  /** Whether the content was JSON with a `sentences` list at all (false: the server ignored the schema). */
  get followedSchema(): boolean {
    return this.parsedOnce;
  }

  private parse(final: boolean): SentenceLike[] | undefined {
    if (!this.content.trim()) return undefined;
    let value: unknown;
    try {
      value = final ? JSON.parse(this.content) : partialParse(this.content);
    } catch {
      try {
        value = partialParse(this.content);
      } catch {
        return undefined;
      }
    }
    const sentences = (value as { sentences?: unknown } | null)?.sentences;
    if (!Array.isArray(sentences)) return undefined;
    this.parsedOnce = true;
    return sentences as SentenceLike[];
  }

  private write(sentences: SentenceLike[] | undefined, final: boolean): string {
    if (!sentences) return '';
    const parts: string[] = [];
    sentences.forEach((s, i) => {
      if (!Number.isInteger(s?.passage)) return;
      let text = typeof s.text === 'string' ? s.text.replace(/\s+/g, ' ') : '';
      // The last sentence may still grow: hold back a `[` or `[1` that may become `[12]`.
      if (!final && i === sentences.length - 1) text = text.replace(/\[\d*$/, '');
      parts.push(`[${s.passage as number}] ${escapeText(text)}`);
    });
    const next = parts.join(' ');
    if (!next.startsWith(this.written)) return ''; // a reparse that does not extend what was sent: wait
    const delta = next.slice(this.written.length);
    this.written = next;
    return delta ? this.answer.push(delta) : '';
  }
}
