import type { Candidate, WeightedQuery } from './sentence-scoring';
import { textTerms } from './passage-context';

/** Whether a term is one the question asks about: a query term the sentence's document context does not hold. */
const askedIn = (c: Candidate, q: WeightedQuery) => (t: string) => q.terms.has(t) && !c.context.has(t);

/** A form field whose label is followed by nothing or straight by the next label: `Airframe Total Time: Engine Manufacturer:`. */
const EMPTY_FIELD =
  /^(\p{Lu}[\p{L}\p{N}&/()'’. -]{0,40}):\s*(?:$|\p{Lu}[\p{L}\p{N}&/()'’. -]{0,40}:(?:\s|$))/u;

/**
 * Whether a sentence looks like a form field stated without a value whose label holds the
 * question's terms (those its document context does not hold) while the rest of it holds none.
 * Two-column forms make this a guess (`Investigator In Charge (IIC): Jim Silliman Report Date:`
 * looks alike), so it only decides close calls.
 */
export function emptyFieldAsked(c: Candidate, q: WeightedQuery): boolean {
  const m = EMPTY_FIELD.exec(c.text);
  if (!m) return false;
  const asked = askedIn(c, q);
  return textTerms(m[1]).some(asked) && !textTerms(c.text.slice(m[1].length + 1)).some(asked);
}

/** A form field answered in the negative (`Amateur Built: No`, `Fire: None`); group 1 is the label's last word. */
const NEGATIVE_FIELD = /([\p{L}\p{N}]+)\s*:\s*(?:No|None)\b(?!\s*\p{Ll})/gu;

/**
 * Whether a sentence holds a form field the question asks about answered `No` or `None`: the
 * document states that it lacks what is asked. The field is asked about when the last word of its
 * label is a query term its document context does not hold; only the last word, because in a
 * form laid out in columns the words before it may be the previous field's value
 * (`Instrument Rating(s): Airplane Second Pilot Present: No`).
 */
export function deniedFieldAsked(c: Candidate, q: WeightedQuery): boolean {
  const asked = askedIn(c, q);
  for (const m of c.text.matchAll(NEGATIVE_FIELD)) if (textTerms(m[1]).some(asked)) return true;
  return false;
}

/** A form line of labels only, none with a value: `Certificate: Age:`. */
const BLANK_FORM_LINE = /^(?:\s*\p{Lu}[\p{L}\p{N}&/()'’. -]{0,40}:)+\s*$/u;

/**
 * Whether a sentence is a form line whose labels have no values, one of them the field the
 * question asks about (a query term its document context does not hold): the document leaves that
 * field blank, so the line answers nothing, however well its label matches.
 */
export function blankFieldAsked(c: Candidate, q: WeightedQuery): boolean {
  if (!BLANK_FORM_LINE.test(c.text)) return false;
  return textTerms(c.text).some(askedIn(c, q));
}

/** A label of up to six capitalised words, as a regex source. */
const LABEL = String.raw`(?:\p{Lu}[\p{L}\p{N}&/()'’.-]*\s+){0,5}\p{Lu}[\p{L}\p{N}&/()'’.-]*`;
/** A label followed straight by what looks like the next label: `Reciprocating Airframe Total Time: Engine Manufacturer:`. */
const LABEL_WITHOUT_VALUE = new RegExp(String.raw`(${LABEL}):\s*(?=(${LABEL}):(?:\s|$))`, 'gu');

/**
 * Whether a sentence prints the field the question names without a value: a label whose last two
 * or more words are a run of the question's terms in the question's order ("What was the airframe
 * total time ...?"), one of them a term its document context does not hold, followed straight by
 * the next label. Anywhere in the sentence, since forms run several fields into one line. A value
 * in capitals looks like a label (`Aircraft Make: Cessna Registration:`), but it names the
 * document, so its context holds it; a label is the form's and does not.
 */
export function namedFieldBlank(c: Candidate, q: WeightedQuery): boolean {
  if (!c.text.includes(':')) return false;
  const termOf = (t: string) => q.termOf.get(t) ?? t;
  const asked = askedIn(c, q);
  for (const m of c.text.matchAll(LABEL_WITHOUT_VALUE)) {
    const next = textTerms(m[2])[0];
    if (next === undefined || c.context.has(next)) continue;
    const label = textTerms(m[1]);
    for (let n = label.length; n >= 2; n--) {
      const run = label.slice(label.length - n);
      const at = q.order.indexOf(termOf(run[0]));
      if (at >= 0 && run.every((t, i) => termOf(t) === q.order[at + i]) && run.some(asked)) return true;
    }
  }
  return false;
}
