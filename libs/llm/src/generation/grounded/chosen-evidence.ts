import type { GenerateInput, Passage } from '../generation.port';
import type { PromptPassage } from './grounded-prompt';
import { NO_ANSWER_TEXT } from '../generation.port';

/** Which passages a generative answer is written from (LLM_EVIDENCE). */
export type EvidenceMode = 'chosen' | 'retrieved';

/** What the extractive answerer made of a question: its answer text with `[n]` markers. */
export type ExtractiveAnswer = (input: GenerateInput) => string;

/**
 * The passages a small generative model answers from, chosen by the extractive answerer:
 *
 * - `null` when the extractive answerer declines (the passages do not cover the question, or two
 *   documents the question names as much answer it about equally): the answer is the not-found
 *   answer, and no model call is made. A 1.5B model asked to say "I don't know" when the passages
 *   miss the answer writes an answer from them anyway (docs/decisions.md), so declining is decided
 *   outside it, by the same rules the extractive answer uses;
 * - otherwise the passages its answer cites, in the order it cites them, each followed by the other
 *   retrieved passages of the same page (a page is split into overlapping chunks, and the sentence the
 *   model needs may sit in the neighbouring one). Passages of pages it did not cite are left out:
 *   a small model given the top 8 passages cites the wrong document or page far more often than the
 *   extractive choice does, and a shorter prompt is a sooner first token on a CPU.
 *
 * The extractive answer comes along: where the model, given passages the extractive answerer found
 * an answer in, still writes the not-found reply, that answer is given instead: the extractive rules
 * found the passages to answer, so the refusal is the model failing to read them, and a grounded
 * extractive answer serves the reader better than none.
 */
export interface ChosenEvidence {
  /** The extractive answer (with `[n]` markers): the answer when the model writes the not-found reply. */
  answer: string;
  passages: Passage[];
}

export function chosenEvidence(input: GenerateInput, extractive: ExtractiveAnswer): ChosenEvidence | null {
  if (input.passages.length === 0) return null;
  const answer = extractive(input);
  if (answer === NO_ANSWER_TEXT) return null;
  const byN = new Map(input.passages.map((p) => [p.n, p]));
  const cited: Passage[] = [];
  for (const m of answer.matchAll(/\[(\d+)\]/g)) {
    const p = byN.get(Number(m[1]));
    if (p && !cited.includes(p)) cited.push(p);
  }
  if (cited.length === 0) return null;
  const page = (p: Passage) => `${p.fileName}\u0000${p.pageNumber}`;
  const out: Passage[] = [];
  for (const c of cited) {
    for (const p of [c, ...input.passages.filter((x) => x !== c && page(x) === page(c))]) {
      if (!out.includes(p)) out.push(p);
    }
  }
  return { answer, passages: out };
}

/**
 * The extractive answer's sentences as the local model's prompt shows them, each behind the
 * prompt label of the passage it came from, in the answer's own format (`[2] The default is
 * 12pt. [1] ...`); sentences of passages the prompt left out are dropped. Each ends with a full
 * stop (a closing colon becomes one): the answer grammar starts a sentence only after one, so a
 * model copying a sentence that ends otherwise would run into the next one's marker.
 */
export function extractiveHint(answer: string, passages: readonly PromptPassage[]): string {
  const out: string[] = [];
  for (const m of answer.matchAll(/([^]*?)\s*\[(\d+)\]\s*/g)) {
    const sentence = m[1].replace(/\s+/g, ' ').trim().replace(/\s*:$/, '.');
    const p = passages.find((x) => x.n === Number(m[2]));
    if (p && sentence)
      out.push(`[${p.label}] ${/[.!?]["'”’)]?$/.test(sentence) ? sentence : `${sentence}.`}`);
  }
  return out.join(' ');
}
