import { Inject, Injectable, Logger } from '@nestjs/common';
import { docqaMetrics, DomainError, ErrorCode } from '@docqa/common';
import {
  abbreviateStates,
  contentStems,
  qualifyingWords,
  queryTerms,
  questionScope,
  QuestionScope,
  stem,
  withoutDates,
  withoutInstructions,
} from '@docqa/text';
import { DocsetCatalog } from '@docqa/catalog';
import {
  COHERE_CHAT_MODELS,
  EMBEDDER,
  Embedder,
  estimateTokens,
  GENERATOR,
  Generator,
  GENERATORS,
  LOCAL_LLM_MODEL,
  NO_ANSWER_TEXT,
  OPENAI_MODEL_ALIAS,
  Passage,
  RERANKER,
  Reranker,
  REWRITER,
  Rewriter,
  startsMidSentence,
} from '@docqa/llm';
import {
  diversify,
  evaluateKeywordRouting,
  nextChunkId,
  previousChunkId,
  SEARCH_INDEX,
  SearchHit,
  SearchIndex,
  StoredChunk,
} from '@docqa/search';
import type { AskCommand, AskEvent, AskResult, AskScope } from './ask.types';
import { chunkContext, rerankDocument } from './chunk-context';
import { CitationTracker } from './citations';
import { endsMidSentence, sentenceContinuation, sentenceStart } from './sentence-continuation';
import { StageTimes } from './stage-times';
import { UsageMeter } from './usage';

/** Every model name `config.model` accepts, whichever provider is configured. */
export function allowedAskModels(): string[] {
  return ['local', LOCAL_LLM_MODEL, OPENAI_MODEL_ALIAS, ...COHERE_CHAT_MODELS];
}

/**
 * The local answerer cannot judge relevance, so before it answers the pipeline checks that the
 * question is about something the docsets contain: query terms found in none of the retrieved
 * chunks are looked up (BM25, one chunk) in the whole docsets; when at least FOREIGN_MIN_TERMS of
 * them, or FOREIGN_MIN_SHARE of the query's terms, occur nowhere, the answer is "not found".
 * Only nouns and names can be foreign: a verb, adjective or adverb of the question (`happened`,
 * `earlier`; `qualifyingWords`) asks something about a topic and names none, and documents rarely
 * use the question's own verb for what they state.
 */
export const FOREIGN_MIN_TERMS = 2;
export const FOREIGN_MIN_SHARE = 0.25;
const FOREIGN_MAX_PROBES = 6;

/**
 * List and compare questions (questionScope) keep at most this many chunks of one document ahead
 * of other documents' chunks, in the search results and in the passages after reranking.
 */
export const SEVERAL_DOCUMENTS_PER_DOCUMENT = 2;

/** Chunks fetched for the reranker per chunk it keeps (bounded by RERANK_MAX_CANDIDATES). */
const RERANK_DEPTH = 3;
const RERANK_MAX_CANDIDATES = 100;

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/**
 * The /ask pipeline: authorise the docsets (before anything is retrieved), keyword routing,
 * rewriter (history + promptContext -> one standalone query) unless the route skips it, embed,
 * hybrid retrieval, optional rerank, passages' cut-off last sentences completed from the chunks
 * that follow, then the generator's answer with `[n]` markers, turned into
 * citations deduplicated by document and page and numbered in order of first use, and the usage
 * of every model call. Nothing retrieved -> a plain "not found" answer with no citations.
 */
@Injectable()
export class AskService {
  private readonly log = new Logger('AskService');

  constructor(
    private readonly docsets: DocsetCatalog,
    @Inject(SEARCH_INDEX) private readonly index: SearchIndex,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(REWRITER) private readonly rewriter: Rewriter,
    @Inject(GENERATOR) private readonly generator: Generator,
    @Inject(GENERATORS) private readonly generators: Generator[],
    @Inject(RERANKER) private readonly reranker: Reranker | null,
  ) {}

  /**
   * Checks the request (403 FORBIDDEN for a docset that is not the caller's, 503 for a model whose
   * provider is not configured) and returns the answer's event stream. Nothing is retrieved
   * before the checks pass.
   */
  async stream(asker: AskScope, cmd: AskCommand, signal?: AbortSignal): Promise<AsyncIterable<AskEvent>> {
    const stages = new StageTimes();
    await this.authorize(asker, cmd.docSetNames);
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
   * A docset is the caller's when its scope allows it and the account has a served document in it
   * (COMPLETE, or re-indexing with its previous version still answering: `documentServedSql` in
   * libs/catalog, the one definition of docset existence).
   */
  async authorize(asker: AskScope, docSetNames: readonly string[]): Promise<void> {
    const allowed = asker.allowedDocSetNames;
    if (allowed !== null && docSetNames.some((n) => !allowed.includes(n)))
      throw DomainError.forbidden('This API token is not allowed to use the requested docsets');
    const owned = new Set(await this.docsets.existingDocsetNames(asker.accountId, docSetNames));
    if (docSetNames.some((n) => !owned.has(n))) {
      throw DomainError.forbidden('A docset in docSetNames does not belong to this account');
    }
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
    const routing = evaluateKeywordRouting(cmd.question, {
      hasHistory: cmd.pastMessages.length > 0,
      hasPromptContext: !!cmd.promptContext?.trim(),
    });
    let query = routing.query;
    if (!routing.skipsRewriter) {
      const r = await this.rewriter.rewrite({
        question: cmd.question,
        history: cmd.pastMessages,
        promptContext: cmd.promptContext,
        signal,
      });
      usage.add(r.call);
      query = r.query.trim() || routing.query;
      stages.lap('rewrite');
    }
    throwIfAborted(signal);

    const vector = await this.embedder.embedQuery(query);
    stages.lap('embed');
    usage.add({ model: this.embedder.modelName, inputTokens: estimateTokens(query), outputTokens: 0 });
    throwIfAborted(signal);

    const scope = questionScope(cmd.question);
    const hits = await this.retrieve(asker, cmd, query, vector, usage, scope, signal);
    stages.lap('retrieve');
    throwIfAborted(signal);

    const tracker = new CitationTracker(hits.map((h) => h.chunk));
    // Both read the engine and need only the hits: run together, one engine round trip less on
    // the answer's path (the completions go unused when the topic is not covered, the rare case).
    const [uncovered, completions] =
      hits.length > 0
        ? await Promise.all([
            generator.choosesExtractively ? this.uncoveredTopic(asker, cmd, query, hits) : false,
            this.sentenceCompletions(asker, cmd, hits),
          ])
        : [false, new Map<string, { head: string; tail: string }>()];
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
      }));
      for await (const e of generator.generate({
        question: cmd.question,
        query,
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
      `ask: ${routing.skipsRewriter ? 'keyword' : 'rewritten'} query, ${hits.length} passages, ` +
        `${citations.length} citations, ${u.calls} model calls, ${stages.summary()}`,
    );
    yield { type: 'done', answer: tracker.text, usage: u };
  }

  /**
   * The missing start and rest of each passage's first and last sentence where the chunk cuts them
   * (sentence-continuation.ts), by chunk id: one read of the chunks around the passages. The answer
   * does not depend on it, so an engine that fails this read leaves the passages as retrieved
   * (logged), never the ask.
   */
  private async sentenceCompletions(
    asker: AskScope,
    cmd: AskCommand,
    hits: SearchHit[],
  ): Promise<Map<string, { head: string; tail: string }>> {
    const out = new Map<string, { head: string; tail: string }>();
    // A retrieved neighbour already gives the answerer the whole sentence; a second copy of it
    // would only count its words twice.
    const retrieved = new Set(hits.map((h) => h.chunk.id));
    const followedBy = new Map<string, StoredChunk>();
    const precededBy = new Map<string, StoredChunk>();
    for (const h of hits) {
      const next = endsMidSentence(h.chunk.text) ? nextChunkId(h.chunk) : undefined;
      if (next && !retrieved.has(next)) followedBy.set(next, h.chunk);
      const previous = startsMidSentence(h.chunk.text) ? previousChunkId(h.chunk) : undefined;
      if (previous && !retrieved.has(previous)) precededBy.set(previous, h.chunk);
    }
    const ids = new Set([...followedBy.keys(), ...precededBy.keys()]);
    if (ids.size === 0) return out;
    let around: StoredChunk[];
    try {
      around = await this.index.chunksById({
        accountId: asker.accountId,
        docSetNames: cmd.docSetNames,
        ids: [...ids],
      });
    } catch (err) {
      // The adapters' errors carry no payload or credential (normaliseError, timedOut).
      const why = err instanceof Error ? err.message : 'unknown error';
      this.log.warn(`ask: passages left as retrieved, the chunks around them could not be read: ${why}`);
      return out;
    }
    const entry = (id: string) => {
      const e = out.get(id) ?? { head: '', tail: '' };
      out.set(id, e);
      return e;
    };
    for (const n of around) {
      const cut = followedBy.get(n.id);
      const tail = cut ? sentenceContinuation(cut, n) : '';
      if (cut && tail) entry(cut.id).tail = tail;
      const opened = precededBy.get(n.id);
      const head = opened ? sentenceStart(n, opened) : '';
      if (opened && head) entry(opened.id).head = head;
    }
    return out;
  }

  /** Whether the query's terms that occur nowhere in the docsets say it is about something else. */
  private async uncoveredTopic(
    asker: AskScope,
    cmd: AskCommand,
    query: string,
    hits: SearchHit[],
  ): Promise<boolean> {
    // Dates and US state names as documents write them (12/08/2007, FL), so a question's
    // "December 8" or "Florida" is not taken for a topic the docsets lack; answer instructions
    // ("Name the locations.") are no topic either.
    const terms = queryTerms(abbreviateStates(withoutDates(withoutInstructions(query))));
    if (terms.length === 0) return false;
    const present = new Set(hits.flatMap((h) => contentStems(h.chunk.text)));
    const missing = terms.filter((t) => !present.has(stem(t)));
    if (missing.length === 0) return false;
    // The tagger runs only when a term is missing from the passages, the uncommon case.
    const qualifying = qualifyingWords(query);
    const absent = missing.filter((t) => !qualifying.has(t)).slice(0, FOREIGN_MAX_PROBES);
    if (absent.length === 0) return false;
    const found = await Promise.all(
      absent.map(async (t) => {
        const r = await this.index.search({
          accountId: asker.accountId,
          docSetNames: cmd.docSetNames,
          text: t,
          limit: 1,
          minimumSimilarityScore: 0,
          mode: 'bm25',
        });
        return r.length > 0;
      }),
    );
    const foreign = absent.filter((_, i) => !found[i]);
    return foreign.length >= FOREIGN_MIN_TERMS || foreign.length / terms.length >= FOREIGN_MIN_SHARE;
  }

  private async retrieve(
    asker: AskScope,
    cmd: AskCommand,
    query: string,
    vector: number[],
    usage: UsageMeter,
    scope: QuestionScope,
    signal?: AbortSignal,
  ): Promise<SearchHit[]> {
    const limit = cmd.retrievalLimit;
    const depth = this.reranker ? Math.min(Math.max(limit * RERANK_DEPTH, 20), RERANK_MAX_CANDIDATES) : limit;
    const diversity = scope === 'single' ? undefined : { perDocument: SEVERAL_DOCUMENTS_PER_DOCUMENT };
    const hits = await this.index.search({
      accountId: asker.accountId,
      docSetNames: cmd.docSetNames,
      text: query,
      vector,
      limit: depth,
      minimumSimilarityScore: cmd.minimumSimilarityScore,
      fusion: { vectorWeight: this.embedder.recommendedVectorWeight },
      diversity,
    });
    if (!this.reranker || hits.length === 0) return hits.slice(0, limit);
    throwIfAborted(signal);
    const r = await this.reranker.rerank({
      query,
      documents: hits.map((h) => rerankDocument(h.chunk)),
      topN: diversity ? hits.length : limit,
      signal,
    });
    usage.add(r.call);
    const reranked = r.results.map((x) => hits[x.index]);
    const ordered = diversity
      ? diversify(reranked, (h) => h.chunk.documentId, diversity.perDocument)
      : reranked;
    return ordered.slice(0, limit);
  }
}

/** A passage's text with the start and rest of its cut first and last sentences, if read. */
function withCompletions(text: string, c?: { head: string; tail: string }): string {
  return c ? c.head + text + c.tail : text;
}
