import type { ChatTurn, GenerateInput, Passage } from '../generation.port';
import { segmentText } from '../local/segments';
import { contentStems } from '@docqa/text';
import { escapeMarkers } from '../local/text';

/**
 * Prompts of the generative providers (local-llm, openai): the passages are numbered 1..k in the
 * prompt, the model cites them by that number, and the number is mapped back to the passage's own
 * `n` (see CitedAnswerStream). Constraining the output (a grammar, or a JSON schema) is what makes
 * every sentence carry a marker; the instructions only make the constrained output sensible.
 */

/** The one reply a model gives when the passages do not answer the question. */
export const NOT_FOUND_REPLY = "I don't know.";

/** Most sentences an answer may have. */
export const MAX_ANSWER_SENTENCES = 3;

/** Instructions of the local model: its output starts each sentence with the passage number. */
export const GRAMMAR_ANSWER_INSTRUCTIONS =
  'You answer questions using only the numbered passages the user gives. Write at most three short ' +
  'sentences. Begin every sentence with the number of the passage it comes from in brackets, then ' +
  'the sentence. Quote commands, options, names and values exactly as the passage writes ' +
  `them. If the passages do not contain the answer, reply exactly: ${NOT_FOUND_REPLY}`;

/** Instructions of a JSON-schema provider (OpenAI-compatible servers). */
export const JSON_ANSWER_INSTRUCTIONS =
  'You answer questions using only the numbered passages the user gives. Reply with JSON: `sentences`, ' +
  'at most three, each with the number of the passage it comes from (`passage`) and one short sentence ' +
  '(`text`). Quote commands, options, names and values exactly as the passage writes them. If the ' +
  'passages do not contain the answer, reply with an empty `sentences` list.';

/** A passage as the prompt shows it: `label` is its number in the prompt, `n` the caller's. */
export interface PromptPassage {
  label: number;
  n: number;
  fileName: string;
  pageNumber: string;
  text: string;
}

export interface PassageBudget {
  /** Tokens of passage text (with their labels) the prompt may hold. */
  budgetTokens: number;
  countTokens: (text: string) => number;
  /** Query the trimmed passage keeps its best sentences for. */
  query: string;
  /** A passage is not trimmed below this many tokens (default 80): it is left out instead. */
  minTokens?: number;
}

/**
 * A passage in the prompt is its label and its text, nothing else: with a file/page header the small
 * models copied the header into the answer ("geometry.pdf, page 17: ...").
 */
function block(label: number, text: string): string {
  return `[${label}] ${text}`;
}

/**
 * Passages for a prompt, best first, within `budgetTokens`: whole while they fit; the first that
 * does not fit is trimmed to the run of its sentences around the ones that share most query terms
 * (when at least `minTokens` are left), later ones are tried the same way. A passage whose text
 * another selected passage already contains (overlapping chunks of one page) is skipped. Bracketed
 * numbers in the text are shown as `(n)`, so they never read as passage numbers.
 */
export function selectPassages(passages: readonly Passage[], o: PassageBudget): PromptPassage[] {
  const minTokens = o.minTokens ?? 80;
  const out: PromptPassage[] = [];
  let left = o.budgetTokens;
  const squashed: string[] = [];
  for (const p of passages) {
    const text = escapeMarkers(p.text.trim());
    const flat = text.replace(/\s+/g, ' ');
    if (!flat || squashed.some((s) => s.includes(flat))) continue;
    const label = out.length + 1;
    const head = `[${label}]`;
    const whole = o.countTokens(block(label, text));
    let kept: string | undefined;
    if (whole <= left) {
      kept = text;
      left -= whole;
    } else if (left >= minTokens) {
      kept = trimToBudget(text, left - o.countTokens(head), o);
      if (kept) left -= o.countTokens(block(label, kept));
    }
    if (!kept) continue;
    squashed.push(flat);
    out.push({ label, n: p.n, fileName: p.fileName, pageNumber: p.pageNumber, text: kept });
    if (left < minTokens) break;
  }
  return out;
}

/** The first `max` documents of `passages` (by file name, in order of first appearance), with their passages. */
export function passagesByDocument<P extends Pick<Passage, 'fileName'>>(
  passages: readonly P[],
  max: number,
): P[][] {
  const groups = new Map<string, P[]>();
  for (const p of passages) {
    const g = groups.get(p.fileName);
    if (g) g.push(p);
    else if (groups.size < max) groups.set(p.fileName, [p]);
  }
  return [...groups.values()];
}

/**
 * selectPassages for an answer with a sentence per document (list and compare questions): the
 * budget is shared among the first `maxDocuments` documents, each taking at most an equal share of
 * what is left when its turn comes (a short document leaves its rest to the later ones), so a tight
 * budget trims every document's passages instead of leaving the last documents out. Labels run
 * 1..k across documents, in document order.
 */
export function selectPassagesPerDocument(
  passages: readonly Passage[],
  o: PassageBudget,
  maxDocuments: number,
): PromptPassage[] {
  const groups = passagesByDocument(passages, maxDocuments);
  if (groups.length < 2) return selectPassages(passages, o);
  const out: PromptPassage[] = [];
  let left = o.budgetTokens;
  groups.forEach((group, i) => {
    const share = Math.floor(left / (groups.length - i));
    for (const s of selectPassages(group, { ...o, budgetTokens: share })) {
      const label = out.length + 1;
      out.push({ ...s, label });
      left -= o.countTokens(block(label, s.text));
    }
  });
  return out;
}

/** The contiguous run of sentences around the best-matching one that fits `budget` tokens. */
function trimToBudget(text: string, budget: number, o: PassageBudget): string | undefined {
  const sentences = segmentText(text);
  if (sentences.length === 0) return undefined;
  const query = new Set(contentStems(o.query));
  const score = (s: string) => new Set(contentStems(s).filter((t) => query.has(t))).size;
  const scores = sentences.map(score);
  let best = 0;
  for (let i = 1; i < sentences.length; i++) if (scores[i] > scores[best]) best = i;
  const cost = sentences.map((s) => o.countTokens(s) + 1);
  if (cost[best] > budget) {
    // One over-long sentence (a table row run): keep its beginning.
    const share = budget / cost[best];
    const cut = sentences[best].slice(0, Math.floor(sentences[best].length * share * 0.9));
    return cut.trim() ? `${cut.trim()} …` : undefined;
  }
  let from = best;
  let to = best;
  let used = cost[best];
  for (;;) {
    const canBefore = from > 0 && used + cost[from - 1] <= budget;
    const canAfter = to + 1 < sentences.length && used + cost[to + 1] <= budget;
    if (!canBefore && !canAfter) break;
    // Prefer the side whose next sentence matches more of the query; ties go forward (answers
    // tend to follow the sentence that names the subject).
    if (canAfter && (!canBefore || scores[to + 1] >= scores[from - 1])) used += cost[++to];
    else used += cost[--from];
  }
  return sentences.slice(from, to + 1).join(' ');
}

/** Trims a turn of the conversation for a prompt: markers gone, whitespace collapsed, at most `max` characters. */
export function turnText(t: ChatTurn, max: number): string {
  const s = t.content
    .replace(/\s*\[\d+\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s;
}

/**
 * The user message of an answer: the passages, then the question. The conversation is not pasted:
 * when the rewriter turned it into a standalone query, that query says what the question is about.
 */
export function answerUserPrompt(
  input: Pick<GenerateInput, 'question' | 'query' | 'history'>,
  passages: readonly PromptPassage[],
): string {
  const blocks = passages.map((p) => block(p.label, p.text));
  const question = input.question.replace(/\s+/g, ' ').trim();
  const query = input.query.replace(/\s+/g, ' ').trim();
  const context =
    input.history.length > 0 && query && query !== question
      ? `\n(In the conversation so far, this question means: ${query})`
      : '';
  return `Passages:\n\n${blocks.join('\n\n')}\n\nQuestion: ${question}${context}`;
}

/** System prompt: the caller's promptContext first, then the answer instructions. */
export function systemPrompt(instructions: string, promptContext?: string): string {
  const ctx = promptContext?.trim();
  return ctx ? `${ctx}\n\n${instructions}` : instructions;
}

/**
 * GBNF grammar of an answer: exactly NOT_FOUND_REPLY, or 1..MAX_ANSWER_SENTENCES sentences that
 * each begin with `[k] ` (k one of the prompt's passage labels) and end with `.`. Inside a
 * sentence a `[` is never followed by a digit and a `.` is followed by a space only after an
 * abbreviation (`D. E. Knuth`, `St. Kitts`; sentenceRules) and never by a `[`, so the next `[k]`
 * always starts a new sentence. The marker comes first so that a cut answer (maximum
 * tokens) still knows the passage of its last sentence.
 */
export function citationGrammar(labels: readonly number[]): string {
  const more = ' (" " seg)?'.repeat(MAX_ANSWER_SENTENCES - 1);
  return [`root ::= ${NOT_FOUND_RULE} | seg${more}`, ...sentenceRules(labels), ''].join('\n');
}

/** The not-found reply as a GBNF string literal. */
const NOT_FOUND_RULE = `"${NOT_FOUND_REPLY.replace(/"/g, '\\"')}"`;

/** GBNF alternatives of a set of passage labels. */
const labelChoice = (labels: readonly number[]) => labels.map((l) => `"${l}"`).join(' | ');

/**
 * Abbreviations a sentence may go on after (`D. E. Knuth`, `U.S. Army`, `e.g. the`, `St. Kitts`):
 * initials and dotted letters, and short words that mostly stand before a name or a number. Without
 * them the grammar ends the sentence at the first `. ` and the name is cut (`Charlestown, St. [1]`).
 */
const ABBREVIATIONS = [
  'etc',
  'vs',
  'cf',
  'al',
  'approx',
  'Mr',
  'Mrs',
  'Ms',
  'Dr',
  'Prof',
  'St',
  'Mt',
  'No',
  'Fig',
  'Vol',
  'Jr',
  'Sr',
  'Inc',
  'Ltd',
  'Co',
  'Corp',
];

/** A sentence after its marker's label, the same in every grammar: `] `, its text, `.`. */
const SENTENCE = '"] " lead* first char* "."';

/**
 * A sentence citing any of `labels` (`seg`), and the characters of sentence text. A `.` followed by
 * a space ends the sentence unless it closes an abbreviation at the start of a word (`abbr`) and the
 * sentence goes on with text, not with the next `[k]`.
 */
function sentenceRules(labels: readonly number[]): string[] {
  return [
    `seg ::= "[" num ${SENTENCE}`,
    'lead ::= abbr ". "',
    'first ::= [^ \\n\\[.]',
    'char ::= [^\\[\\n.] | "[" [^0-9\\n] | "." [^ \\n\\[] | [ (] lead+ first',
    `abbr ::= [A-Za-z] ("." [A-Za-z])* | ${ABBREVIATIONS.map((a) => `"${a}"`).join(' | ')}`,
    `num ::= ${labelChoice(labels)}`,
  ];
}

/**
 * GBNF grammar of a list or compare answer drawn from several documents: one sentence per document,
 * in order, each citing one of that document's passage labels, then at most one more sentence citing
 * any passage (the comparison or a summary). Or NOT_FOUND_REPLY. A small model given passages of
 * three documents otherwise writes one sentence about the first and cites only it.
 */
export function perDocumentGrammar(documents: readonly (readonly number[])[]): string {
  const segs = documents.map((_, i) => `seg${i + 1}`);
  return [
    `root ::= ${NOT_FOUND_RULE} | ${segs.join(' " " ')} (" " seg)?`,
    ...documents.map((ls, i) => `seg${i + 1} ::= "[" (${labelChoice(ls)}) ${SENTENCE}`),
    ...sentenceRules(documents.flat()),
    '',
  ].join('\n');
}

/**
 * The passages' labels grouped by document, in order of first appearance, when they come from two or
 * more documents (at most `max`); undefined otherwise.
 */
export function labelsByDocument(passages: readonly PromptPassage[], max: number): number[][] | undefined {
  const groups = passagesByDocument(passages, max);
  return groups.length >= 2 ? groups.map((g) => g.map((p) => p.label)) : undefined;
}

/**
 * JSON schema of an answer for providers with structured outputs: `passage` comes before `text`,
 * so the passage of a sentence is known before its text streams.
 */
export function citationJsonSchema(labels: readonly number[]): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['sentences'],
    properties: {
      sentences: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['passage', 'text'],
          properties: {
            passage: { type: 'integer', enum: [...labels] },
            text: { type: 'string' },
          },
        },
      },
    },
  };
}
