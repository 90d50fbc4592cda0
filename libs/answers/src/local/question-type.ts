import type { QuestionType } from '@docqa/text';

/*
 * What the answerer looks for in a sentence, by the kind of answer a question asks for
 * (QuestionType: questionType in libs/text).
 */

export const CODE =
  /\\[A-Za-z]+|--?[A-Za-z][\w-]*|:=|[\w)\]]=[\w"'(.{[-]|<\/?[A-Za-z][\w:.-]*>|\w\(|[{}]|_\w/;
const NUMBER =
  /\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred|thousand)\b/i;
const DEFINING = /\b(is|are|means|stands? for|refers? to|defined as|called)\b/i;
const REASON = /\b(to|because|since|so that|in order to|avoid|ensure|otherwise)\b/i;
/** A sentence that only makes sense after the one before it. */
export const REFERS_BACK =
  /^(this|these|that|those|it|they|such|then|here|the (last|above|previous|following|same))\b/i;

/** Whether a sentence (with its context) holds the kind of answer the question asks for. */
export function hasEvidence(type: QuestionType, text: string): boolean {
  switch (type) {
    case 'howto':
      return CODE.test(text);
    case 'numeric':
      return NUMBER.test(text);
    case 'definition':
      return DEFINING.test(text);
    case 'why':
      return REASON.test(text);
    default:
      return false;
  }
}
