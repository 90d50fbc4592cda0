import { performance } from 'node:perf_hooks';
import {
  analysisOf,
  GenerateInput,
  GenerationEvent,
  Generator,
  LOCAL_LLM_MODEL,
  ModelCall,
  NO_ANSWER_TEXT,
} from '../generation.port';
import { CitedAnswerStream } from '../grounded/cited-answer-stream';
import { chosenEvidence, EvidenceMode, ExtractiveAnswer, extractiveHint } from '../grounded/chosen-evidence';
import { OpeningCheck } from '../grounded/opening-check';
import {
  answerUserPrompt,
  citationGrammar,
  GRAMMAR_ANSWER_INSTRUCTIONS,
  labelsByDocument,
  PassageBudget,
  passagesByDocument,
  perDocumentGrammar,
  selectPassages,
  selectPassagesPerDocument,
  systemPrompt,
} from '../grounded/grounded-prompt';
import { LlamaRuntime } from './llama-runtime';
import { TextChannel } from './serial-queue';

/** Most documents a list or compare answer gives a sentence each. */
const MAX_DOCUMENTS_PER_ANSWER = 6;

/**
 * Fewest passage tokens a time target leaves in the prompt, per document the answer gives a
 * sentence of (about one trimmed passage each): on a host too slow for the target an answer comes
 * late rather than from nothing, or without a document it lists.
 */
export const MIN_TIMED_PASSAGE_TOKENS = 200;

/**
 * Tokens of the prompt besides passages and question: the chat template's, and a list answer's hint
 * or a single answer's pointer (extractiveHint).
 */
const PROMPT_FRAME_TOKENS = 40;

export interface LlamaGeneratorOptions {
  /** PROMPT_TOKEN_BUDGET: tokens of passages in the prompt. */
  promptTokenBudget: number;
  /**
   * LLM_FIRST_TOKEN_TARGET_MS: the prompt is cut further to what the model reads within this time at
   * the rate it read its earlier prompts (PromptRate); undefined: PROMPT_TOKEN_BUDGET alone.
   */
  firstTokenTargetMs?: number;
  /** LLM_MAX_ANSWER_TOKENS. */
  maxAnswerTokens: number;
  /**
   * LLM_EVIDENCE: `chosen` (default) answers from the passages the extractive answerer cites and
   * declines where it declines (chosenEvidence); `retrieved` gives the model every retrieved passage
   * within the budget and leaves declining to it.
   */
  evidence?: EvidenceMode;
  /** The extractive answerer's text for an input; needed by `chosen`. */
  extractive?: ExtractiveAnswer;
  /**
   * With `chosen` evidence, a single answer's first this many words are held, and the answer is
   * replaced by the extractive one when they use no word of the question (OpeningCheck); 0 or unset:
   * no check (LLM_OPENING_CHECK=false).
   */
  openingCheckWords?: number;
}

/**
 * Answers with the local GGUF model (node-llama-cpp), by default from the passages the extractive
 * answerer chose (LLM_EVIDENCE, chosenEvidence), told after the question which of them that
 * answerer found the answer in (extractiveHint): shown only the passages, a 1.5B model often cited
 * the other of two (docs/adr/0018). The passages are cut to the token budget
 * (counted with the model's own tokenizer), and a GBNF grammar constrains the output: either the
 * not-found reply or up to three sentences, each starting with `[k]` for one of the passages in
 * the prompt. CitedAnswerStream moves each marker behind its sentence and maps it to the passage's
 * `n` as the text streams, so every sentence of the answer ends with a marker of a passage that
 * was given. A single answer's first words are held until they show it is about the question,
 * else the extractive answer is given and the model stopped (OpeningCheck). Calls are serialised by
 * the runtime's queue; the caller's signal (a client that went away) stops the generation.
 */
export class LlamaGenerator implements Generator {
  readonly provider = 'local-llm' as const;
  readonly models = [LOCAL_LLM_MODEL] as const;
  readonly defaultModel = LOCAL_LLM_MODEL;

  constructor(
    private readonly runtime: LlamaRuntime,
    private readonly o: LlamaGeneratorOptions,
  ) {}

  get choosesExtractively(): boolean {
    return (this.o.evidence ?? 'chosen') === 'chosen' && !!this.o.extractive;
  }

  assertAvailable(): void {
    this.runtime.assertInstalled();
  }

  /**
   * Tokens of passages the prompt may hold: PROMPT_TOKEN_BUDGET, cut to what the model reads within
   * LLM_FIRST_TOKEN_TARGET_MS at its measured rate, less the question and the prompt's own words
   * (the system prompt is kept in the sequence between calls and not read again), and never below
   * MIN_TIMED_PASSAGE_TOKENS per document of the answer. Before the rate is known (the first answer
   * after loading) the token budget alone applies.
   */
  private passageBudget(
    input: GenerateInput,
    countTokens: (text: string) => number,
    documents: number,
  ): number {
    const target = this.o.firstTokenTargetMs;
    const timed = target ? this.runtime.promptRate.tokensWithin(target) : undefined;
    if (timed === undefined) return this.o.promptTokenBudget;
    const rest = countTokens(answerUserPrompt(input, [])) + PROMPT_FRAME_TOKENS;
    const floor = MIN_TIMED_PASSAGE_TOKENS * Math.max(1, documents);
    return Math.min(this.o.promptTokenBudget, Math.max(floor, timed - rest));
  }

  async *generate(given: GenerateInput): AsyncIterable<GenerationEvent> {
    // Analysed once (when the caller did not): the extractive choice and the prompt both read it.
    const analysis = analysisOf(given);
    const input: GenerateInput = { ...given, analysis };
    // undefined: answer from every retrieved passage; null: the extractive rules declined.
    const extractive = this.choosesExtractively ? this.o.extractive : undefined;
    const chosen = extractive ? chosenEvidence(input, extractive) : undefined;
    const evidence = chosen === undefined ? input.passages : (chosen?.passages ?? []);
    if (evidence.length === 0) {
      yield { type: 'text', text: NO_ANSWER_TEXT };
      return;
    }
    const stop = new AbortController();
    const signal = input.signal ? AbortSignal.any([input.signal, stop.signal]) : stop.signal;
    const channel = new TextChannel();
    let call: ModelCall | undefined;
    const job = this.runtime
      .run('Local answer model', signal, async (m, s) => {
        // A list or compare question answered from the extractive choice of several documents:
        // each chosen document gets its share of the prompt and one sentence citing it
        // (perDocumentGrammar).
        const perDocument = !!chosen && analysis.scope !== 'single';
        const budget: PassageBudget = {
          budgetTokens: this.passageBudget(
            input,
            m.countTokens,
            perDocument ? passagesByDocument(evidence, MAX_DOCUMENTS_PER_ANSWER).length : 1,
          ),
          countTokens: m.countTokens,
          query: `${input.question} ${input.query}`,
        };
        const passages = perDocument
          ? selectPassagesPerDocument(evidence, budget, MAX_DOCUMENTS_PER_ANSWER)
          : selectPassages(evidence, budget);
        const answer = new CitedAnswerStream(passages, chosen?.answer);
        const checkWords = this.o.openingCheckWords ?? 0;
        const opening =
          chosen && !perDocument && checkWords > 0
            ? OpeningCheck.when(`${input.question} ${input.query}`, chosen.answer, checkWords)
            : undefined;
        const release = (text: string) => (opening ? opening.push(text) : text);
        // Stops the generation, without an error, once the opening check replaced the answer.
        const cut = new AbortController();
        const before = m.sequence.tokenMeter.getState();
        const documents = perDocument ? labelsByDocument(passages, MAX_DOCUMENTS_PER_ANSWER) : undefined;
        let promptStart = 0;
        let firstTokenMs: number | undefined;
        if (passages.length > 0) {
          const grammar = await m.grammar(
            documents ? perDocumentGrammar(documents) : citationGrammar(passages.map((p) => p.label)),
          );
          const session = new m.ChatSession({
            contextSequence: m.sequence,
            systemPrompt: systemPrompt(GRAMMAR_ANSWER_INSTRUCTIONS, input.promptContext),
            autoDisposeSequence: false,
          });
          try {
            // A single answer from the extractive choice: where that choice found it (extractiveHint).
            const pointer = chosen && !documents ? extractiveHint(chosen.cited, passages) : '';
            const hint = documents
              ? `\n(The passages come from ${documents.length} documents: write one sentence about each, in the order given.)`
              : pointer
                ? `\n(The answer is most likely in ${pointer}.)`
                : '';
            promptStart = performance.now();
            await session.prompt(answerUserPrompt(input, passages) + hint, {
              maxTokens: this.o.maxAnswerTokens * (documents ? Math.ceil((documents.length + 1) / 2) : 1),
              temperature: 0,
              grammar,
              signal: AbortSignal.any([s, cut.signal]),
              stopOnAbortSignal: true,
              onTextChunk: (chunk) => {
                firstTokenMs ??= performance.now() - promptStart;
                channel.push(release(answer.push(chunk)));
                if (opening?.replaced) cut.abort();
              },
            });
            // stopOnAbortSignal returns on any abort: the caller's and the time limit's still fail.
            if (s.aborted) throw s.reason;
          } finally {
            session.dispose({ disposeSequence: false });
          }
        }
        const rest = answer.finish();
        channel.push(opening ? opening.finish(rest) : rest);
        const used = m.sequence.tokenMeter.diff(before);
        if (firstTokenMs !== undefined) this.runtime.promptRate.record(used.usedInputTokens, firstTokenMs);
        call = {
          model: this.runtime.modelName,
          inputTokens: used.usedInputTokens,
          outputTokens: used.usedOutputTokens,
        };
      })
      .then(
        () => channel.end(),
        (err) => channel.end(err),
      );
    let finished = false;
    try {
      for await (const text of channel) yield { type: 'text', text };
      finished = true;
    } finally {
      if (!finished) stop.abort(new DOMException('The answer is no longer read', 'AbortError'));
      await job;
    }
    if (call) yield { type: 'usage', call };
  }
}
