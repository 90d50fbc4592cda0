import {
  analysisOf,
  estimateTokens,
  GenerateInput,
  GenerationEvent,
  Generator,
  LOCAL_MODELS,
  NO_ANSWER_TEXT,
  Passage,
} from '../generation.port';
import { EVIDENCE_MIN_COVERAGE, evidenceAnswer } from './evidence';
import { composeSeveral, SEVERAL_DOCUMENTS } from './multi-document';
import { candidatesOf } from './candidates';
import { companiesNamed, fromNamedCompanies } from './companies';
import { CONTEXT_WEIGHT } from './passage-context';
import { passageContext, passageProse, passageTerms } from './passage-analysis';
import { escapeMarkers } from './text';
import { onStatement, words } from '@docqa/text';
import { blankFieldAsked, deniedFieldAsked, emptyFieldAsked, namedFieldBlank } from './form-fields';
import { CODE, hasEvidence, REFERS_BACK } from './question-type';
import {
  Candidate,
  covered,
  fromNamedDocuments,
  fromNamedPeriods,
  ofOtherYear,
  headingLike,
  ownStems,
  scoreSentence,
  weighQuery,
} from './sentence-scoring';

export * from './form-fields';
export * from './question-type';
export { proseFactor } from './sentence-scoring';
export type { Candidate, WeightedQuery } from './sentence-scoring';

/**
 * How much more a passage of a financial statement the question names weighs, as evidence and
 * for its sentences and rows. Chosen on the FinanceBench development half (docs/adr/0105).
 */
const STATEMENT_PREFERENCE = 2;

export interface LocalGeneratorOptions {
  /**
   * Share of the query's term weight the best passage must contain for an answer to be given;
   * below it the answer says the documents do not cover the question (default 0.34).
   */
  minCoverage?: number;
  /**
   * Share of the query's term weight below which the passages are not about the question at all
   * (the plain not-found answer, no citations, unless the question names a statement or a company
   * whose filing they are); from it up to minCoverage, and whenever no sentence answers clearly,
   * the answer says so and cites the best evidence (default EVIDENCE_MIN_COVERAGE).
   */
  evidenceMinCoverage?: number;
  /**
   * When two documents the question names alike answer it about equally (a coin flip), cite the
   * evidence (true, default) or decline without citations (false). Measured on whole sets by
   * replaying the eval's generator inputs (npm run eval:replay; docs/adr/0104): citing it raised
   * FinanceBench's right filing 0.41 -> 0.56 and dev's right page 0.83 -> 0.85, and cost blind one
   * unanswerable item (4 -> 3 of 7 declined).
   */
  closeCallEvidence?: boolean;
  /** A further sentence of the best page is added when it scores at least this share of the best (default 0.85). */
  followShare?: number;
  /** Characters of answer text at most (default 700). */
  maxChars?: number;
  /**
   * The sentence after the best one (in its passage) is part of the answer when the two together
   * have at most this many characters (default 400; 0: only when the best sentence introduces it:
   * a colon, a very short sentence, a command line). The sentence that matches the question often
   * names its subject, and the one after it says what is asked ("The cache is cleared at exit.
   * Stale entries would be served after an upgrade."); measured on whole sets against adding the
   * sentence before (the evaluation history in git (bench/eval/changes.md before 2026-12-04), round twenty-five).
   */
  followingSentenceChars?: number;
  /**
   * How much better the best sentence must score than the best sentence of another document the
   * question names as much for the answer to cite it (default 1.4). Below it the choice between
   * documents is close to a coin flip, and the answer says it found no clear answer rather than
   * cite a document that may be wrong.
   */
  minMargin?: number;
  /** How much a passage's retrieval rank lowers its sentences' scores: 1 / (1 + rankPrior * rank) (default 0.15). */
  rankPrior?: number;
  /** Weight of query terms a sentence's document context holds (default CONTEXT_WEIGHT). */
  contextWeight?: number;
  /**
   * Cite a close page of the best sentence's document beside it instead of declining (default true;
   * false: such a page is a rival for the margin, as before issue 14's choosing change).
   */
  citeClosePages?: boolean;
  /**
   * With citeClosePages: the best sentence of another page of the same document is cited beside the
   * best one when it says at least this share of what the best says (default 0.5). The document is
   * clear; which of its pages states the answer is not, and one more page of it costs little.
   */
  closePageShare?: number;
  /**
   * When the question names some of the passages' documents (query terms in their title, which
   * holds the file name's words) and the best sentence comes from a document it does not name,
   * the best sentence of the named documents answers instead (default true). "How do I turn on
   * verbose logging in nginx?" is not answered from another manual's sentence about logging,
   * however well its words match.
   */
  preferNamedDocuments?: boolean;
  /** Shares of list and compare answers (default SEVERAL_DOCUMENTS). */
  several?: Partial<typeof SEVERAL_DOCUMENTS>;
}

const tick = () => new Promise<void>((r) => setImmediate(r));

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/**
 * Deterministic extractive answerer (no model, no network). It scores every sentence of the
 * retrieved passages against the query terms — each weighted by how rare it is among those
 * sentences, scope terms (a trailing "in X?") less — with a bonus for query bigrams
 * kept in order, for holding the kind of answer asked for (a command for "how do I", a number for
 * "how many", "X is ..." for "what is X"), and priors for the passage's retrieval rank, its share
 * of the query and how much it reads as prose (an index page matches many words, answers none).
 * The answer is the best sentence with the sentence before it when it refers back and the one
 * after it when both are short together, or the best ends in a colon, is very short or is
 * followed by the command it introduces, plus at most one more sentence that scores nearly as
 * well; each carries its passage's marker.
 * When the best sentence of another page of the same document says at least half as much, both
 * pages are cited (the document is clear, the page is not); a close sentence of another document
 * the question names as much means no clear answer, and it declines.
 * When no passage holds enough of the query's weight, it says the documents do not cover the
 * question instead of guessing.
 */
export class LocalGenerator implements Generator {
  readonly provider = 'local' as const;
  readonly models = [LOCAL_MODELS.generator] as const;
  readonly defaultModel = LOCAL_MODELS.generator;
  readonly choosesExtractively = true;
  private readonly o: Required<Omit<LocalGeneratorOptions, 'several'>> & {
    several: typeof SEVERAL_DOCUMENTS;
  };

  constructor(o: LocalGeneratorOptions = {}) {
    this.o = {
      minCoverage: 0.34,
      evidenceMinCoverage: EVIDENCE_MIN_COVERAGE,
      closeCallEvidence: true,
      followShare: 0.85,
      maxChars: 700,
      followingSentenceChars: 400,
      minMargin: 1.4,
      rankPrior: 0.15,
      contextWeight: CONTEXT_WEIGHT,
      citeClosePages: true,
      closePageShare: 0.5,
      preferNamedDocuments: true,
      ...o,
      several: { ...SEVERAL_DOCUMENTS, ...(o.several ?? {}) },
    };
  }

  /** LOCAL_ANSWER_MIN_MARGIN in effect. */
  get minMargin(): number {
    return this.o.minMargin;
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

  /** The whole answer text, with `[n]` markers. */
  compose(input: GenerateInput): string {
    return this.answer(input, false);
  }

  /**
   * The evidence answer for passages that are about the question (EVIDENCE_TEXT and the markers of
   * the best pages), or null when they are not or the extractive answer declines (a form field
   * printed without a value): what a generative provider says instead of a bare refusal
   * (withEvidenceFallback), so every provider declines alike.
   */
  evidenceFor(input: GenerateInput): string | null {
    const text = this.answer(input, true);
    return text === NO_ANSWER_TEXT ? null : text;
  }

  /** The answer; with `evidenceOnly`, the evidence answer wherever the answer is no decline. */
  private answer(input: GenerateInput, evidenceOnly: boolean): string {
    const passages = input.passages;
    if (passages.length === 0) return NO_ANSWER_TEXT;
    // What is asked, without the instructions on how to answer ("Round to two decimals.").
    const analysis = analysisOf(input);
    const contextOf = new Map(passages.map((p) => [p, passageContext(p)]));
    const { candidates, segmentsOf } = candidatesOf(passages, contextOf, analysis.lineItems);
    if (candidates.length === 0) return NO_ANSWER_TEXT;
    const q = weighQuery(
      analysis.terms,
      candidates,
      new Set(analysis.scopeStems),
      new Set(analysis.askedTerms),
    );
    if (q.total === 0) return NO_ANSWER_TEXT;

    // The passage that holds the most query weight decides whether the documents cover it at all.
    const coverageOf = new Map(
      passages.map((p) => [p, covered(q, [...passageTerms(p.text), ...(contextOf.get(p) ?? [])]) / q.total]),
    );
    // Below evidenceMinCoverage the documents do not cover the question: the plain not-found answer.
    // Between it and minCoverage they are about it without answering it: the evidence answer.
    const bestCoverage = Math.max(...coverageOf.values());
    // A question that names a financial statement ("... shown in the cash flow statement") is
    // about that statement's pages when retrieval found them: they are the evidence to show, and
    // their rows are preferred answers.
    const onNamed = (p: Passage) => onStatement(p.section, analysis.statements);
    // filings of another fiscal year than the question names, read once per passage
    const ofOther = new Set(
      passages.filter((p) => ofOtherYear(contextOf.get(p) ?? new Set(), analysis.fiscalYears)),
    );
    const otherYear = (p: Passage) => ofOther.has(p);
    const yearFound = analysis.fiscalYears.length > 0 && ofOther.size < passages.length;
    const statementFactor = (p: Passage) => (onNamed(p) ? STATEMENT_PREFERENCE : 1);
    const hasStatement = passages.some(onNamed);
    const companies = companiesNamed(passages, `${analysis.question} ${analysis.query}`);
    // A question that names a company whose filing retrieval found is about that filing, however
    // few of its other words the pages print (analysts' "dragged down", "quick ratio"): its
    // evidence is shown, never a bare refusal.
    if (bestCoverage < this.o.evidenceMinCoverage && !hasStatement && !companies.found) return NO_ANSWER_TEXT;
    // a named statement's page leads the evidence however few of the question's words it prints
    const evidenceWeight = (p: Passage) => {
      // another company's filing is no evidence while one of a company the question names is
      if (companies.found && companies.other(p)) return 0;
      const coverage = coverageOf.get(p) ?? 0;
      const base = onNamed(p) ? Math.max(coverage, bestCoverage) * STATEMENT_PREFERENCE : coverage;
      // a filing of another fiscal year than the question names is no evidence while one of that year is
      if (yearFound && otherYear(p)) return 0;
      return base / (1 + this.o.rankPrior * passages.indexOf(p));
    };
    const evidence = () => evidenceAnswer(passages, evidenceWeight);
    if (bestCoverage < this.o.evidenceMinCoverage) return evidence();
    if (bestCoverage < this.o.minCoverage) return evidence();
    const proseOf = new Map(passages.map((p) => [p, passageProse(p.text)]));

    const type = analysis.type;
    const focus = analysis.definitionFocus;
    const focusPattern = focus
      ? new RegExp(
          `\\b${focus.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}s?\\s+(is|are|means|stands? for|refers? to)\\b`,
          'i',
        )
      : undefined;
    for (const c of candidates) {
      const own = segmentsOf.get(c.passage) ?? [];
      c.named = this.o.contextWeight * covered(q, [...c.context]);
      let score = scoreSentence(q, c);
      if (score === 0) continue;
      const prev = REFERS_BACK.test(c.text) ? (own[c.index - 1]?.text ?? '') : '';
      if (hasEvidence(type, `${prev} ${c.text} ${own[c.index + 1]?.text ?? ''}`)) score *= 1.35;
      if (headingLike(c.text)) score *= 0.6;
      if (focusPattern?.test(c.text)) score *= 1.6;
      // A table row is an answer however little prose its table has (an index page is what the
      // prose factor holds back, and its lines are no rows).
      score *= (0.5 + (coverageOf.get(c.passage) ?? 0)) * (c.quote ? 1 : (proseOf.get(c.passage) ?? 1));
      score *= statementFactor(c.passage);
      // What the document's context holds is added after the sentence's own factors: it is the
      // same for every sentence of the document, so it ranks documents and leaves the choice of a
      // sentence within one document to what the sentences say.
      c.score = score / (1 + this.o.rankPrior * c.rank) + c.named;
    }
    const all = fromNamedCompanies(
      fromNamedPeriods(
        [...candidates].sort((a, b) => b.score - a.score || a.rank - b.rank || a.index - b.index),
        otherYear,
      ),
      companies,
    );
    if (!all[0] || all[0].score <= 0) return evidence();
    const scope = analysis.scope;
    if (scope !== 'single') {
      const several = composeSeveral(
        scope,
        all,
        this.o.maxChars,
        {
          covers: (stems) => covered(q, [...stems]),
          says: (c) => covered(q, ownStems(c)),
          denies: (c) => deniedFieldAsked(c, q),
        },
        this.o.several,
      );
      if (several) return evidenceOnly ? evidence() : several;
    }
    // A question that asks for a statement's figure is answered from that statement's pages when
    // retrieval found them and a line there says something of the question: a note or a paragraph
    // that repeats its words is no figure of the statement.
    const onStatementPages = hasStatement ? all.filter((c) => onNamed(c.passage) && c.score > c.named) : [];
    const pool = onStatementPages.length ? onStatementPages : all;
    const ranked = this.o.preferNamedDocuments ? fromNamedDocuments(pool, q) : pool;
    const best = ranked[0];
    const ofBest = (c: Candidate) => c.passage.fileName === best.passage.fileName;
    // The best match is the asked field left blank (`Certificate: Age:`): the document does not
    // state it, and another sentence would answer something else.
    if (blankFieldAsked(best, q)) return NO_ANSWER_TEXT;
    // The best sentence's document prints the field the question names without a value
    // (`Airframe Total Time: Engine Manufacturer:`): it does not state what is asked, however well
    // another of its sentences matches the question's circumstances.
    if (ranked.some((c) => ofBest(c) && namedFieldBlank(c, q))) return NO_ANSWER_TEXT;
    // Rivals for the margin: sentences of other documents that the question names at least as
    // much (a document it does not name is no coin flip). Both are compared on what the sentences
    // say, without the document match they share. A close page of the best sentence's own document
    // is no reason to decline: the document is clear, only the page is not, so both pages are cited
    // when the other page's best sentence says at least closePageShare of what the best one says.
    const content = (c: Candidate) => c.score - best.named;
    const close = (c: Candidate | undefined) =>
      !!c && content(c) > 0 && content(best) < content(c) * this.o.minMargin;
    const otherPage = (c: Candidate) => ofBest(c) && c.passage.pageNumber !== best.passage.pageNumber;
    const rival = ranked.find(
      (c) => (!ofBest(c) || (!this.o.citeClosePages && otherPage(c))) && c.named >= best.named,
    );
    if (close(rival)) return this.o.closeCallEvidence ? evidence() : NO_ANSWER_TEXT;
    const closePage = this.o.citeClosePages ? ranked.find(otherPage) : undefined;
    // A close call within the document is settled for the best sentence only when it states
    // something: a form field the question asks about with no value after its label (`Airframe
    // Total Time: Engine Manufacturer: ...`) is no answer, and the document may well have none.
    if (closePage && close(closePage) && emptyFieldAsked(best, q)) return NO_ANSWER_TEXT;
    if (evidenceOnly) return evidence();

    const own = segmentsOf.get(best.passage) ?? [];
    const chosen: Candidate[] = [];
    const prev = own[best.index - 1];
    if (prev && REFERS_BACK.test(best.text)) chosen.push(prev);
    chosen.push(best);
    const next = own[best.index + 1];
    if (
      next &&
      !best.quote &&
      (/:\s*$/.test(best.text) ||
        words(best.text).length < 8 ||
        (CODE.test(next.text) && next.text.length < 120 && !CODE.test(best.text)) ||
        best.text.length + next.text.length <= this.o.followingSentenceChars)
    ) {
      chosen.push(next);
    }
    if (closePage && content(closePage) > 0 && content(closePage) >= content(best) * this.o.closePageShare) {
      chosen.push(closePage);
    } else {
      for (const c of ranked.slice(1)) {
        const samePage = ofBest(c) && c.passage.pageNumber === best.passage.pageNumber;
        if (c.score < best.score * (samePage ? this.o.followShare : 0.95)) break;
        if (chosen.some((x) => x.text === c.text)) continue;
        chosen.push(c);
        break;
      }
    }

    const parts: Array<{ sentence: string; markers: number[] }> = [];
    let length = 0;
    for (const c of chosen) {
      const sentence = escapeMarkers(c.quote ?? c.text);
      // The same sentence on another page (a document that repeats itself) is said once, citing both.
      const said = parts.find((p) => p.sentence === sentence);
      if (said) {
        if (!said.markers.includes(c.passage.n)) said.markers.push(c.passage.n);
        continue;
      }
      if (parts.length > 0 && length + sentence.length > this.o.maxChars) break;
      parts.push({ sentence, markers: [c.passage.n] });
      length += sentence.length;
    }
    return parts.map((p) => `${p.sentence} ${p.markers.map((n) => `[${n}]`).join(' ')}`).join(' ');
  }
}

/** Streams an answer in word groups, never splitting inside a `[n]` marker. */
export function pieces(answer: string, wordsPerPiece = 6): string[] {
  const tokens = answer.match(/\S+\s*/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += wordsPerPiece)
    out.push(tokens.slice(i, i + wordsPerPiece).join(''));
  return out;
}
