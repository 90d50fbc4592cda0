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
 *   miss the answer writes an answer from them anyway (docs/adr/0018), so declining is decided
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
  /** The passages the extractive answer cites, in its order (the first of each page in `passages`). */
  cited: Passage[];
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
  return { answer, passages: out, cited };
}

/**
 * Where the extractive answer found its answer, as the local model's prompt names it: the prompt
 * labels of the passages it cites (ChosenEvidence.cited), in its order (`passage [2]`,
 * `passages [2] and [1]`); passages the prompt left out are skipped, and it is empty when none is
 * shown. Only the place, not the sentences: quoted, they were copied word for word
 * (docs/adr/0018).
 */
export function extractiveHint(
  cited: readonly Pick<Passage, 'n'>[],
  passages: readonly PromptPassage[],
): string {
  const named = cited.flatMap((c) => passages.filter((p) => p.n === c.n).map((p) => `[${p.label}]`));
  if (named.length === 0) return '';
  if (named.length === 1) return `passage ${named[0]}`;
  return `passages ${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`;
}
