import { stem, STOP_WORDS, words } from './terms';

/** What a question asks for, from its wording: it decides which sentences look like an answer. */
export type QuestionType = 'howto' | 'numeric' | 'definition' | 'why' | 'other';

export function questionType(question: string): QuestionType {
  const q = question.toLowerCase();
  if (
    /\b(how many|how much|how long|how big|how large|what (size|value|number|percentage|unit)|default (value|size|unit))\b/.test(
      q,
    )
  )
    return 'numeric';
  if (/^\s*why\b/.test(q)) return 'why';
  if (
    /\bhow (do|can|should|would|could|to|does one)\b|\b(what|which) (command|option|macro|function|tag|flag|setting|key)\b/.test(
      q,
    )
  )
    return 'howto';
  if (/^\s*(what|who) (is|are|was|were)\b|\bwhat does\b.*\b(stand for|mean)\b|\bdefin/.test(q))
    return 'definition';
  return 'other';
}

/**
 * The term a definition question asks about: "What is a bucket in S3?" -> `bucket`,
 * "What does TLS stand for?" -> `tls`.
 */
export function definitionFocus(question: string): string | undefined {
  let m =
    /^\s*(?:what|who)\s+(?:is|are|was|were)\s+(?:a|an|the)?\s*([\p{L}\p{N}_.-]+(?:\s+[\p{L}\p{N}_.-]+)?)/iu.exec(
      question,
    );
  if (m) return words(m[1]).filter((w) => !STOP_WORDS.has(w))[0];
  m = /^\s*what\s+does\s+([\p{L}\p{N}_.-]+)\s+(?:stand for|mean)/iu.exec(question);
  return m ? words(m[1])[0] : undefined;
}

/**
 * Stems of a question's scope phrase, which names where to look rather than what is asked: a
 * short trailing "in X?" or "according to X?" ("What is a bucket in S3?").
 */
export function scopeStems(question: string): Set<string> {
  const out = new Set<string>();
  const tail = /\b(?:in|according to)\s+(?:the\s+)?([^,?]{1,40})\?\s*$/i.exec(question);
  if (tail && words(tail[1]).length <= 4) for (const w of words(tail[1])) out.add(stem(w));
  return out;
}
