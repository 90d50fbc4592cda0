import { NO_ANSWER_TEXT } from '../generation.port';
import { squash } from '../local/text';
import { NOT_FOUND_REPLY, PromptPassage } from './grounded-prompt';

const MARKER = /^\s*\[(\d+)\] ?/;
const PARTIAL_MARKER = /^\s*\[\d*$/;
/** Where the next marker (or a possible start of one) begins in sentence text. */
const NEXT_MARKER = /\[\d|\[$/;

/**
 * Turns a model's marker-first output (`[2] Sentence one. [1] Sentence two.`, labels as numbered
 * in the prompt) into answer text with each sentence's marker after it, numbered as the caller's
 * passages (`Sentence one. [7] Sentence two. [3]`), while it streams:
 *
 * - text is released as soon as it arrives, except whitespace that may precede the next marker and
 *   a `[`/`[1` that may be the start of one;
 * - a sentence's marker is written when the next sentence starts or the output ends, so even a
 *   cut-off last sentence (maximum tokens) ends with the marker the model chose for it;
 * - a sentence whose label names no passage is dropped, as is text before the first marker, so no
 *   sentence is ever released without a marker;
 * - NOT_FOUND_REPLY (or nothing at all) becomes NO_ANSWER_TEXT, which carries no marker, or the
 *   `notFoundText` given; so does an answer whose first sentence is NOT_FOUND_REPLY behind a marker;
 * - a sentence the answer has already said (the same words, case and spacing aside; or the start
 *   of one, when the output is cut) is not said again: small models repeat a sentence to cite a
 *   second passage for it (about one answer in twelve on the eval sets). Its text is held while it
 *   repeats an earlier sentence and released as soon as it differs; when it repeats the sentence
 *   just before, its marker joins that sentence's (`The stub is f_stubs.c. [4] [7]`), so a
 *   compare answer that names both documents in one repeated sentence still cites both;
 * - a sentence whose figures its passage does not print gets the marker of the page of the same
 *   document that prints more of them (`figurePage`): a small model states the hours flown from a
 *   report's form page and cites the report's first page. The document stays the model's choice.
 */
export class CitedAnswerStream {
  private buf = '';
  private started = false;
  private notFound = false;
  /** Passage number of the open sentence; null while dropping a sentence with an unknown label. */
  private current: number | null | undefined;
  private currentHasText = false;
  private heldSpace = '';
  private emitted = '';
  private sentences = 0;
  /** Released sentences (normalised), and the markers of the last one. */
  private readonly said: string[] = [];
  private lastMarkers = new Set<number>();
  /** The open sentence, normalised; its text held back while it repeats an earlier sentence. */
  private words = '';
  private held = '';
  private holding = false;
  private readonly byLabel: Map<number, number>;
  private readonly passages: readonly CitedPassage[];
  /** Figures each passage's text prints, read once per passage when a sentence needs them. */
  private readonly printedFigures = new Map<CitedPassage, ReadonlySet<string>>();

  /**
   * `notFoundText` replaces the not-found reply (default NO_ANSWER_TEXT): an answer found another
   * way, with its own markers (chosenEvidence).
   */
  constructor(
    passages: readonly CitedPassage[],
    private readonly notFoundText = NO_ANSWER_TEXT,
  ) {
    this.byLabel = new Map(passages.map((p) => [p.label, p.n]));
    this.passages = passages;
  }

  /** Model output; returns the answer text that may be released now. */
  push(chunk: string): string {
    this.buf += chunk;
    return this.drain(false);
  }

  /** The end of the model output: the rest of the answer (with the last sentence's marker). */
  finish(): string {
    let out = this.drain(true);
    out += this.closeSentence();
    if (!this.emitted) out += this.emit(this.notFoundText);
    return out;
  }

  /** Whether the answer cites anything (false for the not-found answer). */
  get cited(): boolean {
    return this.sentences > 0;
  }

  private drain(final: boolean): string {
    let out = '';
    while (this.buf && !this.notFound) {
      // The not-found reply may open the output bare or behind a marker (`[1] I don't know.`, which
      // the grammar allows; a refusal that cites a passage is no answer): held until it is clear.
      const firstSentence = this.sentences === 0 && typeof this.current === 'number' && !this.currentHasText;
      if (!this.started || firstSentence) {
        const t = this.buf.trimStart();
        if (!t) return out;
        if (t.startsWith(NOT_FOUND_REPLY) || (final && NOT_FOUND_REPLY.startsWith(t))) {
          this.notFound = true;
          out += this.emit(this.notFoundText);
          break;
        }
        if (NOT_FOUND_REPLY.startsWith(t)) return out;
      }
      const marker = MARKER.exec(this.buf);
      if (marker) {
        out += this.closeSentence();
        this.buf = this.buf.slice(marker[0].length);
        this.started = true;
        this.current = this.byLabel.get(Number(marker[1])) ?? null;
        continue;
      }
      if (PARTIAL_MARKER.test(this.buf)) {
        if (final) break;
        return out;
      }
      // Sentence text up to the next marker (or a possible start of one); at least one character.
      const next = NEXT_MARKER.exec(this.buf.slice(1));
      const upto = next ? next.index + 1 : this.buf.length;
      const text = this.buf.slice(0, upto);
      this.buf = this.buf.slice(upto);
      if (typeof this.current === 'number') out += this.sentenceText(text);
      else this.started ||= !!text.trim(); // before any marker, or citing no given passage: dropped
    }
    this.buf = '';
    return out;
  }

  private sentenceText(text: string): string {
    let t = this.heldSpace + text;
    const trailing = /\s+$/.exec(t);
    this.heldSpace = trailing ? trailing[0] : '';
    if (trailing) t = t.slice(0, trailing.index);
    if (!t) return '';
    if (!this.currentHasText) {
      t = t.trimStart();
      if (!t) return '';
      if (this.sentences > 0) t = ` ${t}`;
      this.currentHasText = true;
      this.sentences++;
      this.holding = this.said.length > 0;
    }
    t = t.replace(/\s+/g, ' ');
    this.words = normalised(this.words + t);
    if (this.holding) {
      const words = this.words;
      if (this.said.some((s) => s.startsWith(words))) {
        this.held += t;
        return '';
      }
      this.holding = false;
      t = this.held + t;
      this.held = '';
    }
    return this.emit(t);
  }

  private closeSentence(): string {
    const words = this.words;
    const n =
      typeof this.current === 'number'
        ? figurePage(this.passages, this.current, words, (p) => this.printed(p))
        : this.current;
    const had = this.currentHasText;
    const repeated = this.holding;
    this.current = undefined;
    this.currentHasText = false;
    this.heldSpace = '';
    this.words = '';
    this.held = '';
    this.holding = false;
    if (!had || typeof n !== 'number') return '';
    if (repeated) {
      // Said already: only a new passage for the sentence just before is worth its marker.
      this.sentences--;
      if (words !== this.said[this.said.length - 1] || this.lastMarkers.has(n)) return '';
      this.lastMarkers.add(n);
      return this.emit(` [${n}]`);
    }
    this.said.push(words);
    this.lastMarkers = new Set([n]);
    return this.emit(` [${n}]`);
  }

  private printed(p: CitedPassage): ReadonlySet<string> {
    let figures = this.printedFigures.get(p);
    if (!figures) this.printedFigures.set(p, (figures = new Set(figuresOf(p.text ?? ''))));
    return figures;
  }

  private emit(s: string): string {
    this.emitted += s;
    return s;
  }
}

/** A passage as the stream knows it: its prompt label, its number, and what the model read of it. */
export type CitedPassage = Pick<PromptPassage, 'label' | 'n'> &
  Partial<Pick<PromptPassage, 'fileName' | 'text'>>;

/**
 * Numbers of two digits or more (`11,000`, `2.5`, `2019`), thousands separators dropped. A number
 * inside a name (`PA-31T`, `N5921D`, `10-K`) is no figure: the sentence repeats it from the question.
 */
function figuresOf(text: string): string[] {
  return (text.match(/(?<![\p{L}\d.,-])\d[\d,]*(?:\.\d+)?(?![\p{L}\d]|-\p{L})/gu) ?? [])
    .map((f) => f.replace(/,/g, ''))
    .filter((f) => f.replace('.', '').length >= 2);
}

/**
 * The passage number a sentence citing passage `n` should carry: `n`, unless another passage of
 * the same document prints more of the sentence's figures than passage `n` does (the first such,
 * in prompt order). A sentence without figures, or one whose figures no passage prints more of
 * (a sum the model worked out), keeps the model's choice. `printed(p)` is the figures of `p`'s text.
 */
function figurePage(
  passages: readonly CitedPassage[],
  n: number,
  sentence: string,
  printed: (p: CitedPassage) => ReadonlySet<string>,
): number {
  const figures = [...new Set(figuresOf(sentence))];
  const cited = passages.find((p) => p.n === n);
  if (figures.length === 0 || cited?.text === undefined || cited.fileName === undefined) return n;
  const held = (p: CitedPassage) => figures.filter((f) => printed(p).has(f)).length;
  let best = n;
  let most = held(cited);
  for (const p of passages) {
    if (p.fileName !== cited.fileName || p.n === n || p.text === undefined) continue;
    const h = held(p);
    if (h > most) [best, most] = [p.n, h];
  }
  return best;
}

/** A sentence's words for comparing sentences: lower case, single spaces, no outer spaces. */
function normalised(text: string): string {
  return squash(text).toLowerCase();
}
