import { memoByText, rowQuotes } from '@docqa/text';
import type { Passage } from '../generation.port';
import { textTerms } from './passage-context';
import { segmentText } from './segments';
import { proseFactor } from './sentence-scoring';

/**
 * Distinct texts each analysis below keeps (least recently used first out): ten asks' worth of
 * reranker candidates (at most 100 chunks an ask, RERANK_MAX_CANDIDATES in libs/rag), or a docset
 * of 1,000 chunks whose passages keep coming back. An entry of a chunk of about 2,000 characters
 * holds some tens of KB of tokens and stems: tens of MB per cache when full.
 */
export const PASSAGE_TEXTS_CACHED = 1000;

/** A passage's sentences (segmentText), each with its table-row quote (rowQuotes) and terms (textTerms). */
export interface PassageSegment {
  text: string;
  quote?: string;
  stems: readonly string[];
}

function segmentsOf(text: string): readonly PassageSegment[] {
  const quotes = rowQuotes(text);
  return segmentText(text).map((s) =>
    Object.freeze({ text: s, quote: quotes.get(s), stems: Object.freeze(textTerms(s)) }),
  );
}

/**
 * The analyses the extractive answerer and the local reranker make of every passage of an ask,
 * by passage text: the same chunks come back ask after ask (memoByText; results are frozen).
 */
export const passageSegments = memoByText(segmentsOf, PASSAGE_TEXTS_CACHED);
export const passageTerms = memoByText(textTerms, PASSAGE_TEXTS_CACHED);
export const passageProse = memoByText(proseFactor, PASSAGE_TEXTS_CACHED);

/** Stems of a passage's document context (empty without one). */
export function passageContext(p: Passage): Set<string> {
  return new Set(p.context ? passageTerms(p.context) : []);
}

/** Stems of a passage's document title (part of its context; empty without one). */
export function passageTitle(p: Passage): Set<string> {
  return new Set(p.title ? passageTerms(p.title) : []);
}
