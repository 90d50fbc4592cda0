import {
  estimateTokens,
  GenerateInput,
  GenerationEvent,
  Generator,
  LOCAL_MODELS,
  NO_ANSWER_TEXT,
  Passage,
} from '../generation.port';
import { segmentText } from './segments';
import { contentStems, escapeMarkers, words } from './text';

export interface LocalGeneratorOptions {
  /**
   * Share of the query's term weight the best passage must contain for an answer to be given;
   * below it the answer says the documents do not cover the question (default 0.6).
   */
  minCoverage?: number;
  /** Most sentences in an answer (default 3). */
  maxSentences?: number;
  /** A further sentence is added only when it scores at least this share of the best (default 0.75). */
  followShare?: number;
  /** Characters of answer text at most (default 700). */
  maxChars?: number;
}

interface Candidate {
  passage: Passage;
  rank: number;
  index: number;
  text: string;
  stems: string[];
  score: number;
}

/** Query terms with their weights: rarer among the passages' sentences = heavier. */
interface WeightedQuery {
  terms: Map<string, number>;
  total: number;
  order: string[];
}

const tick = () => new Promise<void>((r) => setImmediate(r));

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/**
 * Deterministic extractive answerer (no model, no network). It scores every sentence of the
 * retrieved passages against the query terms (each weighted by how rare it is among those
 * sentences, with a bonus for query bigrams kept in order and a prior for the retrieval rank),
 * then answers with the best sentence, the sentence that completes it when it ends in a colon or
 * is very short, and up to two more sentences that score nearly as well, each followed by the
 * marker of its passage. When the best passage holds too little of the query's weight, it says
 * the documents do not cover the question instead of guessing.
 */
export class LocalGenerator implements Generator {
  readonly provider = 'local' as const;
  readonly models = [LOCAL_MODELS.generator] as const;
  readonly defaultModel = LOCAL_MODELS.generator;
  private readonly o: Required<LocalGeneratorOptions>;

  constructor(o: LocalGeneratorOptions = {}) {
    this.o = { minCoverage: 0.6, maxSentences: 3, followShare: 0.75, maxChars: 700, ...o };
  }

  async *generate(input: GenerateInput): AsyncIterable<GenerationEvent> {
    const { signal } = input;
    const answer = this.compose(input);
    const inputTokens = estimateTokens(
      [input.promptContext ?? '', input.question, ...input.passages.map((p) => p.text)].join('\n'),
    );
    for (const piece of pieces(answer)) {
      await tick();
      if (signal?.aborted) throw abortError(signal);
      yield { type: 'text', text: piece };
    }
    yield {
      type: 'usage',
      call: { model: LOCAL_MODELS.generator, inputTokens, outputTokens: estimateTokens(answer) },
    };
  }

  /** The whole answer text, with `[n]` markers; exported for tests through `answerText`. */
  compose(input: GenerateInput): string {
    const passages = input.passages;
    if (passages.length === 0) return NO_ANSWER_TEXT;
    const candidates: Candidate[] = [];
    passages.forEach((passage, rank) => {
      segmentText(passage.text).forEach((text, index) => {
        candidates.push({ passage, rank, index, text, stems: contentStems(text), score: 0 });
      });
    });
    if (candidates.length === 0) return NO_ANSWER_TEXT;
    const q = weighQuery(`${input.query} ${input.question}`, candidates);
    if (q.total === 0) return NO_ANSWER_TEXT;

    // The passage that holds the most query weight decides whether the documents cover it at all.
    const coverage = Math.max(...passages.map((p) => covered(q, contentStems(p.text)) / q.total));
    if (coverage < this.o.minCoverage) return NO_ANSWER_TEXT;

    for (const c of candidates) c.score = scoreSentence(q, c);
    const ranked = [...candidates].sort((a, b) => b.score - a.score || a.rank - b.rank || a.index - b.index);
    const best = ranked[0];
    if (!best || best.score <= 0) return NO_ANSWER_TEXT;

    const chosen: Candidate[] = [best];
    const next = candidates.find((c) => c.passage === best.passage && c.index === best.index + 1);
    if (next && (/:\s*$/.test(best.text) || words(best.text).length < 8)) chosen.push(next);
    for (const c of ranked.slice(1)) {
      if (chosen.length >= this.o.maxSentences) break;
      if (c.score < best.score * this.o.followShare) break;
      if (chosen.some((x) => x.passage === c.passage && x.index === c.index)) continue;
      if (chosen.some((x) => x.text === c.text)) continue;
      chosen.push(c);
    }

    // Keep document order within a passage so a completed sentence reads naturally.
    const parts: string[] = [];
    let length = 0;
    for (const c of chosen) {
      const sentence = escapeMarkers(c.text);
      if (parts.length > 0 && length + sentence.length > this.o.maxChars) break;
      parts.push(`${sentence} [${c.passage.n}]`);
      length += sentence.length;
    }
    return parts.join(' ');
  }
}

function weighQuery(text: string, candidates: Candidate[]): WeightedQuery {
  const order = [...new Set(contentStems(text))];
  const df = new Map<string, number>(order.map((t) => [t, 0]));
  for (const c of candidates) {
    for (const t of new Set(c.stems)) if (df.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const n = candidates.length;
  const terms = new Map<string, number>();
  let total = 0;
  for (const t of order) {
    const w = Math.log(1 + (n + 1) / ((df.get(t) ?? 0) + 0.5));
    terms.set(t, w);
    total += w;
  }
  return { terms, total, order };
}

function covered(q: WeightedQuery, stems: string[]): number {
  const present = new Set(stems);
  let sum = 0;
  for (const [t, w] of q.terms) if (present.has(t)) sum += w;
  return sum;
}

function scoreSentence(q: WeightedQuery, c: Candidate): number {
  if (c.stems.length === 0) return 0;
  const matched = covered(q, c.stems);
  if (matched === 0) return 0;
  let bigrams = 0;
  for (let i = 0; i + 1 < q.order.length; i++) {
    const a = q.order[i];
    const b = q.order[i + 1];
    for (let j = 0; j + 1 < c.stems.length; j++) {
      if (c.stems[j] === a && c.stems[j + 1] === b) {
        bigrams += Math.min(q.terms.get(a) ?? 0, q.terms.get(b) ?? 0);
        break;
      }
    }
  }
  const length = c.stems.length;
  const lengthPenalty = 1 + 0.25 * Math.max(0, length / 25 - 1);
  const rankPrior = 1 / (1 + 0.08 * c.rank);
  return ((matched + 0.5 * bigrams) / lengthPenalty) * rankPrior;
}

/** Streams an answer in word groups, never splitting inside a `[n]` marker. */
export function pieces(answer: string, wordsPerPiece = 6): string[] {
  const tokens = answer.match(/\S+\s*/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += wordsPerPiece)
    out.push(tokens.slice(i, i + wordsPerPiece).join(''));
  return out;
}
