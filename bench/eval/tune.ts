/* Tuning aid (not part of `npm run eval`): the eval's /ask loop for several variants of the
 * retrieval and answering knobs, on corpora seeded once (direct, with an embedding cache so a
 * semantic model embeds each chunk once across runs). Prints the headline metrics per variant for
 * the tuning half (even ids) and the held-out half (odd ids) separately.
 *   VARIANTS='[{"name":"base"},{"name":"w0","routing":{"weight":0}},{"name":"cw2","generator":{"contextWeight":2}}]' \
 *   EMBED_CACHE=/tmp/embeddings.json node dist/rag-bench/bench/eval/tune.js */
import '../rag/env';
import { GENERATOR, LocalGeneratorOptions } from '@docqa/llm';
import type { SearchQuery } from '@docqa/search';
import { searchIndexOf } from '../../test/support/seed';
import { CORPORA, Engine, startHarness } from '../rag/harness';
import { aggregate, Metrics } from './metrics';
import { evaluateCorpus } from './run';

interface Variant {
  name: string;
  routing?: SearchQuery['routing'];
  fieldBoosts?: SearchQuery['fieldBoosts'];
  generator?: LocalGeneratorOptions;
}

const f2 = (x: number) => (Number.isNaN(x) ? '  - ' : x.toFixed(2));

function line(name: string, half: string, m: Metrics): string {
  return [
    name.padEnd(28),
    half.padEnd(8),
    f2(m.fileHit5),
    f2(m.pageHit5),
    f2(m.citesFile),
    f2(m.citesPage),
    f2(m.citationPrecisionFile),
    f2(m.multiFound),
    f2(m.multiOnlyNamed),
    f2(m.unanswerableNoCitation),
    f2(m.answerableRefused),
  ].join(' ');
}

async function main() {
  const variants: Variant[] = JSON.parse(process.env.VARIANTS ?? '[{"name":"default"}]');
  const corpora = (process.env.EVAL_CORPUS ?? 'dev,similar').split(',').map((n) => CORPORA[n]);
  const h = await startHarness({
    engine: (process.env.EVAL_ENGINE ?? 'embedded') as Engine,
    indexing: 'direct',
    corpora,
    embeddingCache: process.env.EMBED_CACHE,
  });
  try {
    const index = searchIndexOf(h.app);
    const search = index.search.bind(index);
    let current: Variant = { name: '' };
    index.search = (q: SearchQuery) =>
      search({
        ...q,
        ...(current.routing ? { routing: { ...q.routing, ...current.routing } } : {}),
        ...(current.fieldBoosts ? { fieldBoosts: { ...q.fieldBoosts, ...current.fieldBoosts } } : {}),
      });
    const generator = h.app.api.app.get(GENERATOR) as unknown as { o: Record<string, unknown> };
    const defaults = { ...generator.o };
    for (const corpus of corpora) {
      console.log(
        `\n${corpus.name}: variant / half / file@5 page@5 citesFile citesPage precFile | multi found only | unans | refused`,
      );
      for (const v of variants) {
        current = v;
        generator.o = {
          ...defaults,
          ...(v.generator ?? {}),
          several: { ...(defaults.several as object), ...(v.generator?.several ?? {}) },
        };
        const r = await evaluateCorpus(h, corpus, {
          engines: [h.engine],
          corpora: [corpus],
          indexing: 'direct',
          provider: 'local',
          write: false,
          verbose: !!process.env.EVAL_VERBOSE,
        });
        console.log(line(v.name, 'tune', aggregate(r.items.filter((i) => !i.heldOut))));
        console.log(line(v.name, 'held-out', r.heldOut));
      }
    }
  } finally {
    await h.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
