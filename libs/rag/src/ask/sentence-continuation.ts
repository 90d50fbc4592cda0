import { endsSentence, startsMidSentence } from '@docqa/answers';
import type { StoredChunk } from '@docqa/search';

/**
 * A chunk is a window of about 1,200 characters of one page, so its last sentence is usually cut
 * (`... when encrypting the PDF file, the`), and so is its first (`default, per the specification,
 * ...`). An answer that quotes or paraphrases such a sentence would start or stop mid-clause. The
 * pipeline fetches the chunks around and gives the answerer the rest of the sentence with the
 * chunk (the citation stays the chunk's file and page).
 */

/** The end of the first sentence of a continuation: punctuation before a space or the end. */
const SENTENCE_END = /(?<=[\p{L}\p{N})"”'’\]}%])[.!?]["'”’)\]]*(?=\s|$)|[.!?:;]["'”’)\]]*(?=\n)|\n\n/u;
/** A sentence end (or blank line) inside a text. */
const INNER_END = /[.!?:;]["'”’)\]]*\s|\n\n/gu;
/** A word of prose: letters (with inner apostrophes or hyphens), maybe quoted or punctuated. */
const WORD = /^[("“‘']?\p{L}[\p{L}\p{M}'’-]*[)"”’',;:.!?]*$/u;
/** Share of words among the tokens of a prose fragment; code, tables and formulas have fewer. */
const PROSE_WORD_SHARE = 0.75;
/** Words the cut-off sentence needs before it is completed (a lone label or number is not). */
const MIN_FRAGMENT_WORDS = 3;
/** The longest continuation taken: a sentence that runs on further is not completed. */
export const MAX_CONTINUATION = 300;
/** Characters of the next chunk's start looked up in the chunk to find where their texts overlap. */
const OVERLAP_PROBE = 48;

/** Whether the chunk's text stops mid-sentence. */
export function endsMidSentence(text: string): boolean {
  return text.trim().length > 0 && !endsSentence(text);
}

/**
 * The rest of the chunk's last sentence, taken from the chunk that follows it in the document
 * (consecutive chunks of a page overlap; a chunk that opens the next page continues it only when
 * it starts in lower case or with a digit, as a sentence running over a page break does). Empty
 * when there is nothing to add: the chunk ends a sentence, the next chunk is not its neighbour,
 * or the sentence does not end within MAX_CONTINUATION characters.
 */
export function sentenceContinuation(chunk: StoredChunk, next: StoredChunk): string {
  if (next.documentId !== chunk.documentId || next.chunkIndex !== chunk.chunkIndex + 1) return '';
  if (!endsMidSentence(chunk.text)) return '';
  // Only prose is completed: the end of a code listing, a table or a formula has no sentence
  // to finish, and "continuing" it would glue the next heading or listing line to the answer.
  const fragment = chunk.text.slice(lastSentenceStart(chunk.text));
  if (!proseLike(fragment, MIN_FRAGMENT_WORDS)) return '';
  let rest: string;
  if (next.pageNumber === chunk.pageNumber) {
    const at = overlapStart(chunk.text, next.text);
    if (at < 0) return '';
    rest = next.text.slice(chunk.text.length - at);
  } else {
    if (!/^[\p{Ll}\p{N}]/u.test(next.text)) return '';
    rest = ` ${next.text}`;
  }
  const end = SENTENCE_END.exec(rest.slice(0, MAX_CONTINUATION));
  if (!end) return '';
  const continuation = rest.slice(0, end.index + end[0].length).replace(/\s+$/, '');
  return proseLike(continuation, 1) ? continuation : '';
}

/**
 * The start of the chunk's first sentence, taken from the chunk before it in the document, where
 * the chunk starts mid-sentence in lower case (a window starts at a word, not at a sentence; a
 * capital is left alone, since it mostly starts a sentence or a heading). Same rules as the
 * continuation: prose only, across a page break only onto a sentence the previous page left open,
 * at most MAX_CONTINUATION characters. Empty when there is nothing to add.
 */
export function sentenceStart(previous: StoredChunk, chunk: StoredChunk): string {
  if (previous.documentId !== chunk.documentId || previous.chunkIndex !== chunk.chunkIndex - 1) return '';
  if (!startsMidSentence(chunk.text)) return '';
  let before: string;
  if (previous.pageNumber === chunk.pageNumber) {
    const at = overlapStart(previous.text, chunk.text);
    if (at < 0) return '';
    before = previous.text.slice(0, at);
  } else {
    before = `${previous.text} `;
  }
  if (!endsMidSentence(before)) return '';
  const head = before.slice(lastSentenceStart(before)).replace(/^\s+/, '');
  if (!head || head.length > MAX_CONTINUATION) return '';
  const end = SENTENCE_END.exec(chunk.text);
  const firstFragment = end ? chunk.text.slice(0, end.index + end[0].length) : chunk.text;
  if (!proseLike(`${head}${firstFragment}`, MIN_FRAGMENT_WORDS)) return '';
  return /\s$/.test(head) ? head : `${head} `;
}

/** Where the last sentence of a text starts: after its last sentence end or blank line. */
function lastSentenceStart(text: string): number {
  let start = 0;
  for (const m of text.matchAll(INNER_END)) start = m.index + m[0].length;
  return start;
}

/** Whether a fragment reads as prose: at least `minWords` words, and mostly words. */
function proseLike(text: string, minWords: number): boolean {
  const tokens = text.split(/\s+/).filter(Boolean);
  const words = tokens.filter((t) => WORD.test(t)).length;
  return words >= minWords && words >= PROSE_WORD_SHARE * tokens.length;
}

/** Where `next` starts inside `text` such that `text` ends with a prefix of `next`; -1 if nowhere. */
function overlapStart(text: string, next: string): number {
  const probe = next.slice(0, OVERLAP_PROBE);
  // A repeated phrase can occur more than once in the overlap: the latest full match wins.
  for (let at = text.lastIndexOf(probe); at >= 0; at = at > 0 ? text.lastIndexOf(probe, at - 1) : -1)
    if (next.startsWith(text.slice(at))) return at;
  return -1;
}
