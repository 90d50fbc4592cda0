/* Study aid (not part of `npm run eval`): what the local model's answers would score if an answer
 * that uses fewer of the question's words than the extractive answer were replaced by that extractive
 * answer (an answer-relevance fallback). Replays the committed result files of one corpus, the
 * extractive run (`<corpus>.embedded.local.json`) and the local model's (`...local-llm.json`), which
 * share their retrieval (same query and top 5 for every item), so taking one run's outcome for an
 * item is what the fallback would have given. Whole-set figures only (the blind corpus's items are
 * not shown), and when the first words and the first sentence of each model answer are written
 * (estimated from their share of the answer's characters): the first delta of a check that reads them.
 * The last rule is the product's own OpeningCheck (LLM_OPENING_CHECK).
 *   node -r ./test/support/ts-register.js bench/eval/fallback-replay.ts dev,similar,blind [results dir]
 * Round twenty-four's figures replay the files of 20a1daf, before the check was in the product:
 *   mkdir /tmp/r && git archive 20a1daf bench/eval/results | tar -x -C /tmp/r
 *   ... fallback-replay.ts dev,similar,blind /tmp/r/bench/eval/results */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  OPENING_CHECK_WORDS,
  OpeningCheck,
  stemsWithoutMarkers,
} from '../../libs/llm/src/generation/grounded/opening-check';

interface Item {
  id: string;
  cls: string;
  heldOut: boolean;
  question: string;
  query: string;
  answer: string;
  refused: boolean;
  citesPage: boolean;
  answerHasPhrase: boolean;
  ms: number;
  ttftMs?: number;
}

/** The result files replayed: the committed ones, or a directory of earlier ones (second argument). */
const RESULTS = process.argv[3] ?? path.join(__dirname, 'results');
const read = (corpus: string, provider: string): Item[] =>
  (
    JSON.parse(fs.readFileSync(path.join(RESULTS, `${corpus}.embedded.${provider}.json`), 'utf8')) as {
      items: Item[];
    }
  ).items;

/** Distinct content words of the question (and its rewritten query) that the answer text uses. */
function questionWordsUsed(item: Pick<Item, 'question' | 'query'>, answer: string): number {
  const asked = stemsWithoutMarkers(`${item.question} ${item.query}`);
  const used = stemsWithoutMarkers(answer);
  return [...asked].filter((t) => used.has(t)).length;
}

/** The answer's first sentence with its marker. */
const firstSentence = (answer: string) => /^(.*?\[\d+\])/.exec(answer)?.[1] ?? answer;

/** The answer's first `n` words (markers left out). */
const firstWords = (answer: string, n: number) =>
  answer
    .replace(/\[\d+\]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, n)
    .join(' ');

/** The product's OpeningCheck (LLM_OPENING_CHECK) on a whole model answer. */
function openingCheckReplaces(m: Item, e: Item): boolean {
  const check = OpeningCheck.when(`${m.question} ${m.query}`, e.answer, OPENING_CHECK_WORDS);
  if (!check) return false;
  // Word by word, as the model writes it (one or a few tokens a chunk), so that it reads what it would.
  for (const piece of m.answer.split(/(?=\s)/)) check.push(piece);
  check.finish();
  return check.replaced;
}

const RULES: Record<string, (model: Item, extractive: Item) => boolean> = {
  'none (the model answer)': () => false,
  'whole answer uses fewer': (m, e) => questionWordsUsed(m, m.answer) < questionWordsUsed(e, e.answer),
  'first sentence uses fewer': (m, e) =>
    questionWordsUsed(m, firstSentence(m.answer)) < questionWordsUsed(e, e.answer),
  [`opening check (${OPENING_CHECK_WORDS} words)`]: openingCheckReplaces,
};

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)] ?? NaN;
};

for (const corpus of (process.argv[2] ?? 'dev,similar').split(',')) {
  const extractive = new Map(read(corpus, 'local').map((i) => [i.id, i]));
  const model = read(corpus, 'local-llm');
  // When a part of the answer has been written: the first delta plus that part's share of the rest.
  const partEnds = (part: (answer: string) => string) =>
    model
      .filter((m) => m.ttftMs !== undefined)
      .map((m) =>
        m.refused
          ? m.ttftMs!
          : m.ttftMs! + (m.ms - m.ttftMs!) * (part(m.answer).length / Math.max(1, m.answer.length)),
      );
  const p50p95 = (xs: number[]) =>
    `${(pct(xs, 0.5) / 1000).toFixed(1)} / ${(pct(xs, 0.95) / 1000).toFixed(1)} s`;
  console.log(
    `${corpus}: first delta p50 / p95 ${p50p95(model.map((m) => m.ttftMs ?? 0))}; first ${OPENING_CHECK_WORDS} words written ` +
      `${p50p95(partEnds((a) => firstWords(a, OPENING_CHECK_WORDS)))}; first sentence written ${p50p95(partEnds(firstSentence))}`,
  );
  for (const [name, replace] of Object.entries(RULES)) {
    let single = 0;
    let page = 0;
    let phrase = 0;
    let phraseHeldOut = 0;
    let replaced = 0;
    for (const m of model) {
      const e = extractive.get(m.id);
      if (!e) throw new Error(`${m.id} is not in the extractive run`);
      // The check leaves list and compare answers (a sentence per document) alone.
      const swap = m.cls !== 'multi' && !m.refused && !e.refused && replace(m, e);
      const outcome = swap ? e : m;
      if (swap) replaced++;
      if (m.cls !== 'single') continue;
      single++;
      page += +outcome.citesPage;
      phrase += +outcome.answerHasPhrase;
      if (m.heldOut) phraseHeldOut += +outcome.answerHasPhrase;
    }
    console.log(
      `  ${name.padEnd(26)} right page ${(page / single).toFixed(3)}  phrase ${(phrase / single).toFixed(3)} ` +
        `(held out ${phraseHeldOut})  answers replaced ${replaced} of ${model.length}`,
    );
  }
}
