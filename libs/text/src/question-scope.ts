/**
 * Whether a question is about one document or several, from its wording (English). A list
 * question ("Which of the contracts were renewed?", "List every report that ...") wants an answer
 * from every matching document; a comparison ("Which had more revenue: the store in A or the
 * store in B?", "Compare X and Y") from each document it names; a trend question ("How has
 * Apple's total net sales changed over time?") from each of the documents it names, one per period
 * in a set of periodic reports, where one report states one quarter. Retrieval then keeps passages
 * of several documents (diversity), and the answer cites each of them.
 */
export type QuestionScope = 'single' | 'list' | 'compare' | 'trend';

const COMPARE =
  /\b(compare[ds]?|comparison|versus|vs\.?|differences? between|both|of the two|which (one|of (the|these|those) (two|three)))\b/i;
const COMPARATIVE =
  /\b(more|less|fewer|greater|higher|lower|larger|smaller|longer|shorter|earlier|later|older|younger|newer|bigger|heavier|lighter|faster|slower|most|least)\b|\b\w{3,}er than\b/i;
const LIST =
  /^\s*(which|what) of (the|these|those|all)\b|\b(list|name|enumerate|identify) (all|every|each|the)\b|\b(in|for) which (of the )?\w+s\b|\b(all|every) (the )?\w+s? (that|which|where|whose|with|in which)\b|^\s*which \w+s (were|are|had|have|did|do|involved|happened|occurred|reported|show|mention)\b/i;

/**
 * How something developed over several periods. "How does X change Y?" is left out: in a manual it
 * asks what an option does, so a change verb counts after "has/have" (its subject changed), or
 * after "did" with a span of time.
 */
const TREND = new RegExp(
  [
    String.raw`\bhow (has|have) .{1,80}\b(changed|evolved|grown|developed|trended|increased|decreased|declined|shifted|varied|fluctuated|risen|fallen|improved|deteriorated)\b`,
    String.raw`\bhow did .{1,80}\b(change|evolve|grow|develop|trend|increase|decrease|decline|shift|vary|fluctuate|rise|fall)\b.{0,40}\b(over|between|from|across|since|during)\b`,
    String.raw`\bover (time|the (years|quarters|months|periods)|the (last|past|previous) (\w+ )?(years|quarters|months|periods))\b`,
    String.raw`\b(year|quarter|month)[- ](over|on|to)[- ](year|quarter|month)\b`,
    String.raw`\btrends? (in|of|for)\b`,
  ].join('|'),
  'i',
);

export function questionScope(question: string): QuestionScope {
  const q = question.replace(/\s+/g, ' ').trim();
  if (COMPARE.test(q)) return 'compare';
  // "Which had more revenue: the store in A or the store in B?", "Of A and B, which ... more ...?"
  if (/(^|[.,:;?!]\s+)(who|which|what)\b/i.test(q) && COMPARATIVE.test(q) && /\b(or|and)\b/i.test(q))
    return 'compare';
  if (LIST.test(q)) return 'list';
  if (TREND.test(q)) return 'trend';
  return 'single';
}

/** A sentence that tells how to answer ("Give the invoice numbers.", "Name the suppliers."). */
const INSTRUCTION =
  /^(give|name|list|provide|include|show|state|answer|cite|quote|mention|use|keep|format|reply|respond)\b/i;

/**
 * The question without its answer instructions: sentences after the first that start with an
 * imperative ("Which contracts were renewed? Name the suppliers." -> "Which contracts were renewed?").
 * They say what the answer should look like, not what the documents must be about.
 */
export function withoutInstructions(question: string): string {
  const sentences = question.split(/(?<=[.?!])\s+/);
  return [sentences[0], ...sentences.slice(1).filter((s) => !INSTRUCTION.test(s.trim()))].join(' ');
}
