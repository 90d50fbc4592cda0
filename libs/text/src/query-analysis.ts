import { fiscalYearsNamed } from './filing';
import { identifierTokens, queryStems } from './query-terms';
import { questionScope, type QuestionScope, withoutWorkingInstructions } from './question-scope';
import { definitionFocus, questionType, type QuestionType, scopeStems } from './question-type';
import { type LineItemAsked, lineItemsAsked } from './line-items';
import { type StatementKind, statementsAsked } from './statements';

/**
 * What one ask's question says, read once: computed by the ask (or /search) before retrieval,
 * completed with the search query once the rewriter made it, and handed to retrieval, the
 * reranker and the answerer, so none of them reads the question's wording again. Plain data
 * (strings and arrays, frozen): it survives JSON, as the eval's dumped generator inputs need.
 */
export interface QueryAnalysis {
  /** The question as the caller asked it. */
  readonly question: string;
  /** The standalone search query (the question itself until the rewriter made one). */
  readonly query: string;
  /** The question without its instructions on how to work ("Round to two decimals."). */
  readonly asked: string;
  /** The query without such instructions. */
  readonly askedQuery: string;
  /** One document or several (list, compare, trend), from the question's wording. */
  readonly scope: QuestionScope;
  /** The kind of answer the question asks for. */
  readonly type: QuestionType;
  /** The kind of answer the search query asks for (what the local reranker looks for). */
  readonly queryType: QuestionType;
  /** The term a definition question asks about ("What is a bucket?" -> `bucket`). */
  readonly definitionFocus?: string;
  /** The financial statements the question names, or reads its metrics from (statements.ts). */
  readonly statements: readonly StatementKind[];
  /** The fiscal years the question names (`fy2023` for "FY2023", "Q2 2023"): which filings answer. */
  readonly fiscalYears: readonly string[];
  /** The statement line items it asks for by an analyst's name ("capex"; line-items.ts). */
  readonly lineItems: readonly LineItemAsked[];
  /** Stems of the question's scope phrase (a trailing "in X?"): where to look, not what is asked. */
  readonly scopeStems: readonly string[];
  /** Compound identifiers the question names (`=page.margin.top`). */
  readonly identifiers: readonly string[];
  /** The question's own terms (stems, date tokens, identifiers): they weigh fully. */
  readonly askedTerms: readonly string[];
  /**
   * The terms an answer is weighed against, in order: the question's and the query's (terms the
   * rewriter brought in from the conversation among them), with the question's identifiers.
   */
  readonly terms: readonly string[];
}

type QuestionPart = Omit<QueryAnalysis, 'query' | 'askedQuery' | 'queryType' | 'terms'>;

function questionPart(question: string): QuestionPart {
  const asked = withoutWorkingInstructions(question);
  const identifiers = identifierTokens(asked);
  const focus = definitionFocus(question);
  return {
    question,
    asked,
    scope: questionScope(question),
    type: questionType(question),
    ...(focus === undefined ? {} : { definitionFocus: focus }),
    scopeStems: [...scopeStems(asked)],
    statements: statementsAsked(question),
    fiscalYears: fiscalYearsNamed(asked),
    lineItems: lineItemsAsked(asked),
    identifiers,
    askedTerms: [...new Set([...queryStems(asked), ...identifiers])],
  };
}

function withQueryPart(q: QuestionPart, query: string): QueryAnalysis {
  const askedQuery = withoutWorkingInstructions(query);
  return Object.freeze({
    ...q,
    query,
    askedQuery,
    queryType: questionType(query),
    terms: [...new Set([...queryStems(`${q.asked} ${askedQuery}`), ...q.identifiers])],
  });
}

/** The analysis of a question and its search query (the question itself when not given). */
export function analyseQuery(question: string, query: string = question): QueryAnalysis {
  return withQueryPart(questionPart(question), query);
}

/**
 * The analysis with the search query the rewriter made: the question's part is kept as it is,
 * only what depends on the query is derived (the same analysis when the query is unchanged).
 */
export function withSearchQuery(analysis: QueryAnalysis, query: string): QueryAnalysis {
  if (query === analysis.query) return analysis;
  const { query: _q, askedQuery: _a, queryType: _t, terms: _terms, ...question } = analysis;
  return withQueryPart(question, query);
}
