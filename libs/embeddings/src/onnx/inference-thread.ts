import { LOWER_THREAD_PRIORITY_SOURCE } from '@docqa/common';
import { clsPool } from './pooling';

/**
 * Code of the inference thread: the tokenizer (@huggingface/tokenizers) and the onnxruntime-node
 * session live here, because onnxruntime-node runs a session synchronously on the calling thread
 * (a batch of 8 chunks takes ~0.15 s on 2 cores), which would stall the event loop that serves the
 * API and heartbeats indexing activities. One message is one batch, padded to its longest text;
 * vectors come back as one Float32Array (transferred, not copied), with the batch's token counts
 * and how long tokenizing and inference took. `pooling` (the manifest's): `mean` reads the graph's
 * own pooled and normalised `sentence_embedding`; `cls` reads `last_hidden_state` and pools here.
 */
export const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const ort = require(workerData.ortPath);
const { Tokenizer } = require(workerData.tokenizersPath);
const { dir, modelFile, maxTokens, threads, pooling } = workerData;
${clsPool.toString()}
// before the session, so that onnxruntime's threads inherit the priority
${LOWER_THREAD_PRIORITY_SOURCE}
// Longer texts are cut before tokenizing (512 tokens never need more); whitespace runs are one
// separator to BERT's pre-tokenizer, so collapsing them first changes no token.
const MAX_CHARS = 32768;
let tok, sep, session;
const ready = (async () => {
  const read = (f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
  tok = new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
  sep = tok.encode('').ids.at(-1);
  session = await ort.InferenceSession.create(path.join(dir, modelFile), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // idle inference threads sleep instead of spinning: the machine also serves the API
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
})();
function encode(text) {
  const t = text.length > MAX_CHARS ? text.replace(/\\s+/g, ' ').slice(0, MAX_CHARS) : text;
  const ids = tok.encode(t).ids;
  return ids.length > maxTokens ? [...ids.slice(0, maxTokens - 1), sep] : ids;
}
parentPort.on('message', async ({ id, texts, close }) => {
  if (close) {
    // release the session, then end the thread on its own: terminating a thread that holds an
    // onnxruntime session aborts the whole process
    await ready.catch(() => undefined);
    await session?.release().catch(() => undefined);
    process.exit(0);
  }
  try {
    await ready;
    const t0 = performance.now();
    const enc = texts.map(encode);
    const B = enc.length;
    const L = Math.max(...enc.map((e) => e.length));
    const ids = new BigInt64Array(B * L);
    const mask = new BigInt64Array(B * L);
    enc.forEach((e, i) => e.forEach((v, j) => { ids[i * L + j] = BigInt(v); mask[i * L + j] = 1n; }));
    const t = (a) => new ort.Tensor('int64', a, [B, L]);
    const t1 = performance.now();
    const output = pooling === 'cls' ? 'last_hidden_state' : 'sentence_embedding';
    const out = await session.run(
      { input_ids: t(ids), attention_mask: t(mask), token_type_ids: t(new BigInt64Array(B * L)) },
      [output],
    );
    const vectors =
      pooling === 'cls'
        ? clsPool(out[output].data, B, L, out[output].dims[2])
        : new Float32Array(out[output].data);
    const stats = {
      tokens: enc.reduce((s, e) => s + e.length, 0),
      paddedTokens: B * L,
      tokenizeMs: t1 - t0,
      inferMs: performance.now() - t1,
    };
    parentPort.postMessage({ id, ok: true, vectors, stats }, [vectors.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, ok: false, message: String((err && err.message) || err).slice(0, 300) });
  }
});
ready.then(
  () => parentPort.postMessage({ ready: true }),
  (err) => parentPort.postMessage({ ready: false, message: String((err && err.message) || err).slice(0, 300) }),
);
`;
