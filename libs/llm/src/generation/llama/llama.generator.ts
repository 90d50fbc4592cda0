import {
  GenerateInput,
  GenerationEvent,
  Generator,
  LOCAL_LLM_MODEL,
  ModelCall,
  NO_ANSWER_TEXT,
} from '../generation.port';
import { CitedAnswerStream } from '../grounded/cited-answer-stream';
import { chosenEvidence, EvidenceMode, ExtractiveAnswer } from '../grounded/chosen-evidence';
import {
  answerUserPrompt,
  citationGrammar,
  GRAMMAR_ANSWER_INSTRUCTIONS,
  labelsByDocument,
  perDocumentGrammar,
  selectPassages,
  systemPrompt,
} from '../grounded/grounded-prompt';
import { LlamaRuntime } from './llama-runtime';
import { TextChannel } from './serial-queue';
import { questionScope } from '../../analysis/question-scope';

/** Most documents a list or compare answer gives a sentence each. */
const MAX_DOCUMENTS_PER_ANSWER = 6;

export interface LlamaGeneratorOptions {
  /** PROMPT_TOKEN_BUDGET: tokens of passages in the prompt. */
  promptTokenBudget: number;
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
}

/**
 * Answers with the local GGUF model (node-llama-cpp), by default from the passages the extractive
 * answerer chose (LLM_EVIDENCE, chosenEvidence). The passages are cut to the token budget
 * (counted with the model's own tokenizer), and a GBNF grammar constrains the output: either the
 * not-found reply or up to three sentences, each starting with `[k]` for one of the passages in
 * the prompt. CitedAnswerStream moves each marker behind its sentence and maps it to the passage's
 * `n` as the text streams, so every sentence of the answer ends with a marker of a passage that
 * was given. Calls are serialised by the runtime's queue; the caller's signal (a client that went
 * away) stops the generation.
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

  async *generate(input: GenerateInput): AsyncIterable<GenerationEvent> {
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
        const passages = selectPassages(evidence, {
          budgetTokens: this.o.promptTokenBudget,
          countTokens: m.countTokens,
          query: `${input.question} ${input.query}`,
        });
        const answer = new CitedAnswerStream(passages, chosen?.answer);
        const before = m.sequence.tokenMeter.getState();
        // A list or compare question answered from the extractive choice of several documents:
        // one sentence per chosen document, each citing it (perDocumentGrammar).
        const documents =
          chosen && questionScope(input.question) !== 'single'
            ? labelsByDocument(passages, MAX_DOCUMENTS_PER_ANSWER)
            : undefined;
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
            const hint = documents
              ? `\n(The passages come from ${documents.length} documents: write one sentence about each, in the order given.)`
              : '';
            await session.prompt(answerUserPrompt(input, passages) + hint, {
              maxTokens: this.o.maxAnswerTokens * (documents ? Math.ceil((documents.length + 1) / 2) : 1),
              temperature: 0,
              grammar,
              signal: s,
              onTextChunk: (chunk) => channel.push(answer.push(chunk)),
            });
          } finally {
            session.dispose({ disposeSequence: false });
          }
        }
        channel.push(answer.finish());
        const used = m.sequence.tokenMeter.diff(before);
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
