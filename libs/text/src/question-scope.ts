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
 * A sentence that tells the answerer how to work rather than asking something: "Assume that you
 * are an analyst.", "Round your answer to two decimal places.", "Please base your judgments on the
 * balance sheet.", "We need to calculate a financial metric.", "If the margin is not a useful
 * metric, then please state that." Questions written for analysts wrap what they ask in these.
 */
const ANSWER_INSTRUCTION = new RegExp(
  [
    String.raw`^(please\s+)?(give|provide|show|state|answer|respond|reply|round|assume|base|calculate|compute|express|report|use|using|utiliz\w*|rely\w*|consider|keep|format|cite|quote)\b`,
    String.raw`^(we|i)\s+(need|want|would like)\s+to\b`,
    String.raw`^if\b.*\b(then\s+)?(please\s+)?(state|say|explain|answer)\b`,
  ].join('|'),
  'i',
);

/**
 * A leading clause that says where to look before the question itself: "According to the details
 * outlined within the balance sheet, how much ...", "Using only the information within the balance
 * sheet, how much ...", "By drawing conclusions from the income statement, what is ...". Only a
 * clause about a source of information goes: "Using SSH keys, how do I ...?" says what is asked.
 */
const SOURCE_CLAUSE =
  /^(?:according\s+to|based\s+(?:up)?on|by\s+\w+ing|using|relying\s+on|in\s+agreement\s+with|when\s+(?:\w+\s+)?referencing|with\s+reference\s+to|referring\s+to|considering|looking\s+at)\b(?=[^,?]{0,160}\b(?:information|details|data|figures|statements?|sheets?)\b)[^,?]{0,160},\s*(?=(?:what|how|which|who|when|where|why|is|are|was|were|did|does|do|has|have)\b)/i;

/** A first sentence that only says how to work, never what to find. */
const LEADING_INSTRUCTION =
  /^(please\s+)?(assume|answer the following|round|base|calculate|compute|use|using|utiliz\w*|rely\w*|consider)\b|^(we|i)\s+(need|want|would like)\s+to\b/i;

/**
 * The question without its answer instructions. Sentences after the first that start with an
 * imperative ("Which contracts were renewed? Name the suppliers." -> "Which contracts were
 * renewed?") go, and so does any sentence that only says how to work (ANSWER_INSTRUCTION) while
 * another sentence remains; an instruction that leads into the question after a colon ("Answer
 * the following question using the balance sheet: what is the net PPNE?") keeps the question.
 * They say what the answer should look like, not what the documents must be about.
 */
export function withoutInstructions(question: string): string {
  const sentences = question
    .split(/(?<=[.?!])\s+/)
    .map((s) => {
      const t = s.trim();
      const colon = t.lastIndexOf(':');
      return ANSWER_INSTRUCTION.test(t) && colon > 0 && colon < t.length - 1 ? t.slice(colon + 1).trim() : t;
    })
    .filter(Boolean);
  // A first sentence that asks for content ("Give me the default.") is the question itself; only
  // one that says how to work ("Assume that you are an analyst.") goes.
  const kept = sentences.filter((s, i) =>
    i === 0 ? !LEADING_INSTRUCTION.test(s) : !INSTRUCTION.test(s) && !ANSWER_INSTRUCTION.test(s),
  );
  return (kept.length ? kept : sentences.slice(0, 1)).join(' ');
}

/** Words of a sentence that says how to answer, not what: units, rounding, sources, method. */
const METHOD_WORDS =
  /\b(answer|response|respond|round\w*|decimal|units?|usd|millions?|billions?|percent\w*|rel(y|ying)|using|use|based?|information|details|analyst|calculate|compute|metric|explain)\b/i;

/**
 * The question for weighing what an answer must say: withoutInstructions, but an instruction that
 * names what to give stays ("Give the registration numbers." asks for those fields); only those
 * that say how to work go ("Answer in USD billions.", "Give a response by relying on the cash flow
 * statement.", "Assume that you are an analyst.").
 */
export function withoutWorkingInstructions(question: string): string {
  const sentences = question
    .split(/(?<=[.?!])\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const working = (s: string, i: number) =>
    (i === 0 && LEADING_INSTRUCTION.test(s)) ||
    (i > 0 && (INSTRUCTION.test(s) || ANSWER_INSTRUCTION.test(s)) && METHOD_WORDS.test(s));
  const kept = sentences
    .map((s) => {
      const colon = s.lastIndexOf(':');
      return ANSWER_INSTRUCTION.test(s) && colon > 0 && colon < s.length - 1 ? s.slice(colon + 1).trim() : s;
    })
    .map((s) => s.replace(SOURCE_CLAUSE, ''))
    .filter((s, i) => !working(s, i));
  return (kept.length ? kept : sentences.slice(0, 1)).join(' ');
}
