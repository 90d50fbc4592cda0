/* Tuning aid (not part of `npm run eval`): replays the local answerer on generator inputs dumped
 * by an eval or tune run (EVAL_DUMP_INPUTS=<dir>), so answer choosing and citing can be studied in
 * seconds without engines. Prints the citing metrics of both halves and, with VERBOSE=1, each item.
 *   npm run eval:replay -- <dir>/similar.embedded.json [options JSON] */
import * as fs from 'node:fs';
import { GenerateInput, LocalGenerator, LocalGeneratorOptions } from '@docqa/answers';
import type { QaItem } from '../rag/qa';
import { aggregate } from './metrics';
import { citedPages, scoreItem } from './scoring';

const [file, options] = process.argv.slice(2);
const dumped = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{
  item: QaItem;
  input: GenerateInput | null;
}>;
// Dumps written before passages carried their document's title: it is the context up to the section.
for (const { input } of dumped)
  for (const p of input?.passages ?? []) {
    if (p.title || !p.context) continue;
    const at = p.section ? p.context.indexOf(` | ${p.section}`) : p.context.lastIndexOf(' | ');
    p.title = at > 0 ? p.context.slice(0, at) : undefined;
  }
const gen = new LocalGenerator(options ? (JSON.parse(options) as LocalGeneratorOptions) : {});
const scores = dumped.map(({ item, input }) => {
  const answer = input ? gen.compose(input) : '';
  const cited = citedPages(answer, input?.passages ?? []);
  const retrieved = (input?.passages ?? []).map((p) => ({ fileName: p.fileName, pageNumber: p.pageNumber }));
  const s = scoreItem(item, answer, cited, retrieved, () => false);
  if (process.env.VERBOSE)
    console.log(
      `${item.id} ${item.kind} ${s.citesFile ? 'F' : '-'}${s.citesPage ? 'P' : '-'}${s.noCitation ? 'N' : ''} cited=${cited.map((c) => `${c.fileName}#${c.pageNumber}`).join(',')} gold=${item.fileName}#${item.page} | ${answer.slice(0, 160).replace(/\n/g, ' ')}`,
    );
  return s;
});
const show = (name: string, m: ReturnType<typeof aggregate>) =>
  console.log(
    `${name.padEnd(8)} citesFile ${m.citesFile.toFixed(2)} citesPage ${m.citesPage.toFixed(2)} phrase ${m.answerHasPhrase.toFixed(3)} precFile ${m.citationPrecisionFile.toFixed(2)} perAnswer ${m.citationsPerAnswer.toFixed(2)} multiFound ${m.multiFound.toFixed(2)} only ${m.multiOnlyNamed.toFixed(2)} unans ${m.unanswerableNoCitation.toFixed(2)} refused ${m.answerableRefused.toFixed(2)}`,
  );
show('all', aggregate(scores));
show('tune', aggregate(scores.filter((s) => !s.heldOut)));
show('held-out', aggregate(scores.filter((s) => s.heldOut)));
