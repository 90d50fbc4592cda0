import { Inject, Injectable, Logger } from '@nestjs/common';
import { docqaMetrics, DomainError, ErrorCode } from '@docqa/common';
import { COHERE_CHAT_MODELS } from '@docqa/cohere';
import { analyseQuery } from '@docqa/text';
import {
  GENERATOR,
  Generator,
  GENERATORS,
  LOCAL_LLM_MODEL,
  NO_ANSWER_TEXT,
  OPENAI_MODEL_ALIAS,
  Passage,
} from '@docqa/answers';
import { DocsetAccess } from '../retrieval/docset-access';
import { RetrievalService, throwIfAborted } from '../retrieval/retrieval.service';
import type { AskCommand, AskEvent, AskResult, AskScope } from './ask.types';
import { chunkContext } from './chunk-context';
import { CitationTracker } from './citations';
import { PassageReads, withCompletions } from './passage-reads';
import { StageTimes } from './stage-times';
import { UsageMeter } from './usage';

/** Every model name `config.model` accepts, whichever provider is configured. */
export function allowedAskModels(): string[] {
  return ['local', LOCAL_LLM_MODEL, OPENAI_MODEL_ALIAS, ...COHERE_CHAT_MODELS];
}

/**
 * The /ask pipeline: authorise the docsets (before anything is retrieved), the retrieval /search
 * shares (RetrievalService: routing, rewrite, embed, hybrid search, rerank), one read around the
 * passages (PassageReads: the topic check, the rest of their cut-off sentences), then the
 * generator's answer with `[n]` markers, turned into
 * citations deduplicated by document and page and numbered in order of first use, and the usage
 * of every model call. Nothing retrieved -> a plain "not found" answer with no citations.
 */
@Injectable()
export class AskService {
  private readonly log = new Logger('AskService');

  constructor(
    private readonly access: DocsetAccess,
    private readonly retrieval: RetrievalService,
    private readonly around: PassageReads,
    @Inject(GENERATOR) private readonly generator: Generator,
    @Inject(GENERATORS) private readonly generators: Generator[],
  ) {}

  /**
   * Checks the request (403 FORBIDDEN for a docset that is not the caller's, 503 for a model whose
   * provider is not configured) and returns the answer's event stream. Nothing is retrieved
   * before the checks pass.
   */
  async stream(asker: AskScope, cmd: AskCommand, signal?: AbortSignal): Promise<AsyncIterable<AskEvent>> {
    const stages = new StageTimes();
    await this.access.authorize(asker, cmd.docSetNames);
    stages.lap('authorize');
    const generator = this.generatorFor(cmd.model);
    docqaMetrics.askRequests.inc();
    return this.run(asker, cmd, generator, stages, signal);
  }

  /** The whole answer at once (the JSON response of /ask). */
  async answer(asker: AskScope, cmd: AskCommand, signal?: AbortSignal): Promise<AskResult> {
    const events = await this.stream(asker, { ...cmd, stream: false }, signal);
    let result: AskResult | undefined;
    let citations: AskResult['citations'] = [];
    for await (const e of events) {
      if (e.type === 'citations') citations = e.citations;
      else if (e.type === 'done') result = { answer: e.answer, citations, usage: e.usage };
    }
    if (!result) throw new DomainError(ErrorCode.INTERNAL_ERROR, 'The answer ended without a result');
    return result;
  }

  /**
   * The generator of `config.model` (the configured default when unset). A model whose provider
   * is not configured, or whose local model file is missing, is 503 CAPABILITY_DISABLED.
   */
  private generatorFor(model: string | undefined): Generator {
    const g =
      model === undefined || this.generator.models.includes(model)
        ? this.generator
        : this.generators.find((x) => x.models.includes(model));
    if (!g) {
      const needs =
        model === OPENAI_MODEL_ALIAS
          ? 'the OpenAI-compatible provider, which is not configured (OPENAI_BASE_URL or OPENAI_API_KEY)'
          : 'the Cohere provider, which is not configured (COHERE_API_KEY)';
      throw new DomainError(ErrorCode.CAPABILITY_DISABLED, `Model ${model} needs ${needs}`, {
        field: 'config.model',
      });
    }
    g.assertAvailable?.();
    return g;
  }

  private async *run(
    asker: AskScope,
    cmd: AskCommand,
    generator: Generator,
    stages: StageTimes,
    signal?: AbortSignal,
  ): AsyncIterable<AskEvent> {
    const usage = new UsageMeter();
    // The question is read once per ask: retrieval completes the analysis with its search query,
    // and the generator reads that.
    const { query, rewritten, analysis, hits, candidates } = await this.retrieval.retrieve(
      {
        accountId: asker.accountId,
        analysis: analyseQuery(cmd.question),
        docSetNames: cmd.docSetNames,
        pastMessages: cmd.pastMessages,
        promptContext: cmd.promptContext,
        limit: cmd.retrievalLimit,
        minimumSimilarityScore: cmd.minimumSimilarityScore,
      },
      { usage, stages },
      signal,
    );

    const tracker = new CitationTracker(hits.map((h) => h.chunk));
    // The second and last engine read of the ask, if any: the topic check (extractive answerers
    // only) and the chunks around the passages the retrieval did not return, together (the
    // completions go unused when the topic is not covered, the rare case).
    const { uncovered, completions, engineRead } =
      hits.length > 0
        ? await this.around.read(
            { accountId: asker.accountId, docSetNames: cmd.docSetNames },
            query,
            hits,
            !!generator.choosesExtractively,
            candidates,
          )
        : { uncovered: false, completions: new Map(), engineRead: false };
    stages.lap('topic check and sentence completions');
    throwIfAborted(signal);
    if (hits.length === 0 || uncovered) {
      yield { type: 'delta', text: tracker.push(NO_ANSWER_TEXT) + tracker.flush() };
    } else {
      const passages: Passage[] = hits.map((h, i) => ({
        n: i + 1,
        fileName: h.chunk.fileName,
        pageNumber: h.chunk.pageNumber,
        text: withCompletions(h.chunk.text, completions.get(h.chunk.id)),
        context: chunkContext(h.chunk) || undefined,
        title: h.chunk.documentTitle || undefined,
        section: h.chunk.section || undefined,
      }));
      for await (const e of generator.generate({
        question: cmd.question,
        query,
        analysis,
        history: cmd.pastMessages,
        promptContext: cmd.promptContext,
        passages,
        model: cmd.model && generator.models.includes(cmd.model) ? cmd.model : undefined,
        stream: cmd.stream,
        signal,
      })) {
        if (e.type === 'usage') usage.add(e.call);
        else {
          const text = tracker.push(e.text);
          if (text) yield { type: 'delta', text };
        }
      }
      const rest = tracker.flush();
      if (rest) yield { type: 'delta', text: rest };
      stages.lap('generate');
    }
    const citations = tracker.citations();
    yield { type: 'citations', citations };
    const u = usage.toUsage();
    this.log.log(
      `ask: ${rewritten ? 'rewritten' : 'keyword'} query, ${hits.length} passages, ` +
        `${citations.length} citations, ${u.calls} model calls, ${engineRead ? 2 : 1} engine reads, ` +
        stages.summary(),
    );
    yield { type: 'done', answer: tracker.text, usage: u };
  }
}
