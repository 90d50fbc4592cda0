/* Search benchmark: retrieval quality, the local embedder's throughput, bulk throughput and query
 * latency of both engines. Chunks come from the production chunker (libs/indexing).
 *   npm run bench:search                          (MiniLM, both engines, 20,000 synthetic chunks)
 *   BENCH_SYNTHETIC=0 npm run bench:search        (quality and embedder throughput only)
 *   BENCH_SYNTHETIC_VECTORS=model npm run bench:search (embed the synthetic set with the model too)
 *   BENCH_EMBEDDER=hashing npm run bench:search   (the hashing embedder as the main one)
 *   BENCH_COMPARE_HASHING=0 npm run bench:search  (skip the hashing embedder's quality pass)
 *   BENCH_ELASTICSEARCH_URL=http://... npm run bench:search (reuse a running Elasticsearch)
 *   BENCH_ENGINES=embedded npm run bench:search
 *   LOCAL_EMBEDDER_PRECISION=fp32 npm run bench:search (the fp32 graph; default: the product's `auto`)
 * Writes bench/search/results.json (after every engine) and prints it.
 * Parts: settings.ts, spaces.ts (the embedded corpora), engines.ts, measure.ts, results.ts. */
import * as path from 'node:path';
import { Embedder, LocalHashingEmbedder } from '@docqa/embeddings';
import { loadDevCorpus, loadQa, loadSciFact, sciFactChunks } from './corpus';
import { openEngine, startElasticsearch } from './engines';
import { embedderThroughput, quality, syntheticLatency } from './measure';
import { resultsHeader, writeResults } from './results';
import {
  COMPARE_HASHING,
  ENGINES,
  loadAvg,
  loadOnnxEmbedder,
  log,
  MAIN_EMBEDDER,
  SHARED,
  SYNTHETIC_VECTORS,
  THROUGHPUT_SAMPLE,
} from './settings';
import { embedSpaces, syntheticSet } from './spaces';

async function main() {
  const results: Record<string, unknown> = resultsHeader();

  log('extracting the dev corpus with unpdf');
  const devRaw = await loadDevCorpus(path.join(SHARED, 'corpus/dev'));
  const qa = loadQa(path.join(SHARED, 'corpus/dev/qa.jsonl'));
  const sci = loadSciFact(path.join(SHARED, 'benchmarks/scifact'));
  const sciRaw = sciFactChunks(sci);
  results.corpora = {
    dev: { chunks: devRaw.length, questions: qa.length },
    scifact: { abstracts: sci.docs.length, chunks: sciRaw.length, queries: sci.queries.length },
  };
  log(`corpora: ${JSON.stringify(results.corpora)}`);

  const embedders: Embedder[] = [];
  if (MAIN_EMBEDDER === 'minilm') {
    results.embedderThroughput = await embedderThroughput(devRaw.slice(0, THROUGHPUT_SAMPLE));
    embedders.push(await loadOnnxEmbedder(8));
  } else embedders.push(new LocalHashingEmbedder());
  if (COMPARE_HASHING) embedders.push(new LocalHashingEmbedder());
  const main = embedders[0];
  results.embedders = embedders.map((e) => `${e.modelName} (${e.dimensions} dims)`);

  const spaces = await embedSpaces(embedders, devRaw, sciRaw, qa, sci);
  results.embedSeconds = Object.fromEntries(spaces.map((s) => [s.embedder.modelName, s.embedSeconds]));

  const syn = await syntheticSet(main);
  if (syn.embedSeconds !== undefined) results.syntheticEmbedSeconds = syn.embedSeconds;
  results.syntheticVectors =
    SYNTHETIC_VECTORS === 'model'
      ? `${main.modelName}`
      : `seeded random unit vectors, ${main.dimensions} dims`;

  const { es, esUrl } = await startElasticsearch(ENGINES);

  const engines: Record<string, Record<string, unknown>> = {};
  results.engines = engines;
  try {
    for (const engine of ENGINES) {
      const r: Record<string, unknown> = { quality: {} };
      engines[engine] = r;
      for (const x of spaces) {
        const h = await openEngine(engine, x.embedder, esUrl);
        try {
          (r.quality as Record<string, unknown>)[x.embedder.modelName] = await quality(
            engine,
            h.index,
            x,
            qa,
            sci,
          );
          if (x.embedder === main && syn.chunks.length) await syntheticLatency(engine, h.index, syn, r);
        } finally {
          await h.close().catch((err: Error) => log(`${engine}: cleanup failed: ${err.message}`));
          writeResults(results);
        }
      }
    }
  } finally {
    await es?.stop();
    for (const e of embedders) await e.close?.();
  }
  results.loadAverageAtEnd = loadAvg();
  writeResults(results);
  console.log(JSON.stringify(results, null, 2));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
