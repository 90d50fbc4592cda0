/* Study aid (not part of `npm run eval`): how far the local generative model's answers are held back
 * by the passages it is given, and how far by the model itself. Replays generator inputs dumped by an
 * eval run (EVAL_DUMP_INPUTS=<dir>) through the product's local-model generator (createLlamaGenerator,
 * the configuration from the environment) twice per answerable single-document item whose gold page
 * is among the retrieved passages:
 *   - `retrieved`: the passages as the ask pipeline handed them over (the product);
 *   - `gold`: only the retrieved passages of the gold page(s), in their order (perfect evidence).
 * The gap between the two is what better retrieval or evidence choice could win at most; what `gold`
 * still misses is the model's (wording, wrong sentence of the right page, wrong yes/no). Whole-set
 * figures; VERBOSE=1 prints every item (not for the blind corpus, whose items are not read).
 *   LLM_FIRST_TOKEN_TARGET_MS=600000 node -r ./test/support/ts-register.js bench/eval/llm-ceiling.ts \
 *     <dir>/dev.embedded.json [retrieved,gold] [out.json]
 * (A first-token target this high leaves the prompt at PROMPT_TOKEN_BUDGET on any host, so two hosts
 * or two runs of different load compare.) */
import * as fs from 'node:fs';
import { loadConfig } from '@docqa/common';
import {
  createLlamaGenerator,
  createLlamaRuntime,
  GenerateInput,
  createLocalGenerator,
  Passage,
} from '@docqa/llm';
import type { QaItem } from '../rag/qa';
import { aggregate } from './metrics';
import { citedPages, goldSources, scoreItem } from './scoring';
import { percentile } from '../../test/support/stats';

type Mode = 'retrieved' | 'gold';

const [file, modesArg, outFile] = process.argv.slice(2);
const modes = (modesArg ?? 'retrieved,gold').split(',') as Mode[];
const dumped = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{
  item: QaItem;
  input: GenerateInput | null;
}>;

const onGoldPage = (item: QaItem, p: Passage) =>
  goldSources(item).some((g) => g.fileName === p.fileName && g.pages.has(Number(p.pageNumber)));

async function main() {
  const cfg = loadConfig();
  const runtime = createLlamaRuntime(cfg);
  const generator = createLlamaGenerator(cfg, runtime, createLocalGenerator(cfg));
  const items = dumped.filter(
    (d) =>
      d.input &&
      d.item.answer &&
      goldSources(d.item).length === 1 &&
      d.input.passages.some((p) => onGoldPage(d.item, p)),
  );
  console.error(
    `${items.length} of ${dumped.length} items: answerable, one gold document, gold page retrieved`,
  );
  const report: Record<string, unknown> = { file, items: items.length };
  try {
    for (const mode of modes) {
      const scores = [];
      const ms: number[] = [];
      const rows = [];
      for (const { item, input } of items) {
        const passages =
          mode === 'gold' ? input!.passages.filter((p) => onGoldPage(item, p)) : input!.passages;
        const t0 = Date.now();
        let answer = '';
        for await (const e of generator.generate({ ...input!, passages, stream: true })) {
          if (e.type === 'text') answer += e.text;
        }
        ms.push(Date.now() - t0);
        const retrieved = passages.map((p) => ({ fileName: p.fileName, pageNumber: p.pageNumber }));
        const s = scoreItem(item, answer, citedPages(answer, passages), retrieved, () => false);
        scores.push(s);
        rows.push({ id: item.id, citesPage: s.citesPage, phrase: s.answerHasPhrase, answer });
        if (process.env.VERBOSE)
          console.log(
            `${mode} ${item.id} ${s.citesPage ? 'P' : '-'}${s.answerHasPhrase ? 'Q' : '-'} | ${answer.slice(0, 200)}`,
          );
      }
      const m = aggregate(scores);
      const held = aggregate(scores.filter((s) => s.heldOut));
      const sorted = [...ms].sort((a, b) => a - b);
      const line = {
        citesPage: m.citesPage,
        phrase: m.answerHasPhrase,
        refused: m.answerableRefused,
        heldOutCitesPage: held.citesPage,
        heldOutPhrase: held.answerHasPhrase,
        p50Ms: percentile(sorted, 50),
        p95Ms: percentile(sorted, 95),
      };
      report[mode] = { ...line, rows };
      console.log(`${mode.padEnd(9)} ${JSON.stringify(line)}`);
    }
  } finally {
    await runtime.close();
  }
  if (outFile) fs.writeFileSync(outFile, JSON.stringify(report, null, 1));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
