import { lightStem, normaliseText } from '../embeddings/local-hashing.embedder';

/**
 * Term analysis shared by the ask pipeline (libs/rag: what a question is about, uncovered topics)
 * and the local models (generator, rewriter, reranker, titler).
 */

/**
 * Words that carry no subject in a question or a sentence. Question words are included: a
 * question's "how", "which" or "default" says what is asked, not what it is about.
 */
export const STOP_WORDS = new Set(
  (
    'a an and are as at be been being but by for from has have had he her his i if in into is it its ' +
    "it's me my no nor not of on or our she so than that the their them then there these they this those " +
    'to was we were what when where which who whom whose why will with would you your yours can could do ' +
    'does did doing done how all any some also just about after before again should shall may might must ' +
    'very too only own same such here each other more most both few until while up down out off over under ' +
    "once further am s t don doesn didn isn aren wasn weren won wouldn couldn shouldn let lets i'm i've " +
    'want need like get gets got use used using make makes way ways thing things one ones please tell know ' +
    'say says said give gives instead without whether really actually possible inside within across along ' +
    'among around behind below beside between beyond during except near onto through toward towards upon via'
  ).split(/\s+/),
);

/** Normalised words (letters/digits runs), in order, duplicates kept. */
export function words(text: string): string[] {
  return normaliseText(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Stemmed content words, in order, duplicates kept. */
export function contentStems(text: string): string[] {
  return words(text)
    .filter((w) => !STOP_WORDS.has(w))
    .map(stem);
}

export function stem(w: string): string {
  return lightStem(w);
}

/**
 * The distinct content words of a query (normalised, no stop words, no bare numbers, at least 3
 * characters), in order: what a question is about.
 */
export function queryTerms(text: string): string[] {
  return [...new Set(words(text).filter((w) => w.length >= 3 && !STOP_WORDS.has(w) && !/^\d+$/.test(w)))];
}
