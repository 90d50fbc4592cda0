/* Study aid (not part of `npm run eval`): what the local model's answers would score if an answer
 * that uses fewer of the question's words than the extractive answer were replaced by that extractive
 * answer (an answer-relevance fallback). Replays the committed result files of one corpus, the
 * extractive run (`<corpus>.embedded.local.json`) and the local model's (`...local-llm.json`), which
 * share their retrieval (same query and top 5 for every item), so taking one run's outcome for an
 * item is what the fallback would have given. Whole-set figures only (the blind corpus's items are
 * not shown), and the time the first sentence of each model answer ends (estimated from its share of
 * the answer's characters), which is when a fallback decided on that sentence could stream.
 *   node -r ./test/support/ts-register.js bench/eval/fallback-replay.ts dev,similar,blind */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { contentStems } from '../../libs/llm/src/analysis/terms';

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

const RESULTS = path.join(__dirname, 'results');
const read = (corpus: string, provider: string): Item[] =>
  (JSON.parse(fs.readFileSync(path.join(RESULTS, `${corpus}.embedded.${provider}.json`), 'utf8')) as { items: Item[] })
    .items;

/** Distinct content words of the question (and its rewritten query) that the answer text uses. */
function questionWordsUsed(item: Pick<Item, 'question' | 'query'>, answer: string): number {
  const asked = new Set(contentStems(`${item.question} ${item.query}`));
  const used = new Set(contentStems(answer.replace(/\[\d+\]/g, ' ')));
  return [...asked].filter((t) => used.has(t)).length;
}

/** The answer's first sentence with its marker. */
const firstSentence = (answer: string) => /^(.*?\[\d+\])/.exec(answer)?.[1] ?? answer;

const RULES: Record<string, (model: Item, extractive: Item) => boolean> = {
  'none (the model answer)': () => false,
  'whole answer uses fewer': (m, e) => questionWordsUsed(m, m.answer) < questionWordsUsed(e, e.answer),
  'first sentence uses fewer': (m, e) => questionWordsUsed(m, firstSentence(m.answer)) < questionWordsUsed(e, e.answer),
};

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)] ?? NaN;
};

for (const corpus of (process.argv[2] ?? 'dev,similar').split(',')) {
  const extractive = new Map(read(corpus, 'local').map((i) => [i.id, i]));
  const model = read(corpus, 'local-llm');
  const sentenceEnds = model
    .filter((m) => m.ttftMs !== undefined && !m.refused)
    .map((m) => m.ttftMs! + (m.ms - m.ttftMs!) * (firstSentence(m.answer).length / Math.max(1, m.answer.length)));
  console.log(
    `${corpus}: first delta p95 ${(pct(model.map((m) => m.ttftMs ?? 0), 0.95) / 1000).toFixed(1)} s; first sentence ends p50 / p95 ` +
      `${(pct(sentenceEnds, 0.5) / 1000).toFixed(1)} / ${(pct(sentenceEnds, 0.95) / 1000).toFixed(1)} s`,
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
      const swap = !m.refused && !e.refused && replace(m, e);
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
