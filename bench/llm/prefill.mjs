/* Prompt processing speed of the local generative model on this host, as `../shared/models/README.md`
 * measured it (prompt of about 1,730 tokens, context 4096, batch 512, 2 threads, free text), with
 * llama.cpp's flash attention off and on taking turns (docs/benchmarks/ask.md, "Prompt speed"):
 *   node bench/llm/prefill.mjs [rounds]      (default 3)
 * LLM_MODEL_PATH names the GGUF (default: the one `npm run models:install -- llm` installs). Each
 * measurement is a fresh sequence, so nothing of the prompt is reused; 8 tokens are generated. */
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { getLlama, LlamaChatSession } from 'node-llama-cpp';
import { modelPath, passagesPrompt, REPORT_PARAGRAPH } from './prompt.mjs';

const rounds = Number(process.argv[2] ?? 3);
const llama = await getLlama({ gpu: false, build: 'never' });
const model = await llama.loadModel({ modelPath, gpuLayers: 0 });
// 9 longer passages: about 1,650 tokens, the size the models README measured
const user = passagesPrompt(
  9,
  `${REPORT_PARAGRAPH}The airplane sustained substantial damage to the left wing. `,
);
const promptTokens = model.tokenize(user).length;
console.log(
  `model ${path.basename(modelPath)}, ${os.cpus()[0]?.model ?? 'cpu'} x ${os.cpus().length}, ` +
    `threads ${llama.cpuMathCores}, prompt ${promptTokens} tokens, load ${os.loadavg()[0].toFixed(2)}`,
);
const results = { off: [], on: [] };
for (let r = 0; r < rounds; r++) {
  for (const fa of r % 2 === 0 ? ['off', 'on'] : ['on', 'off']) {
    const context = await model.createContext({
      contextSize: 4096,
      batchSize: 512,
      threads: llama.cpuMathCores,
      flashAttention: fa === 'on',
    });
    const session = new LlamaChatSession({
      contextSequence: context.getSequence(),
      systemPrompt: 'Answer from the passages.',
    });
    const t0 = performance.now();
    let first = 0;
    await session.prompt(user, {
      maxTokens: 8,
      temperature: 0,
      onTextChunk: () => {
        first ||= performance.now();
      },
    });
    const ttft = (first - t0) / 1000;
    results[fa].push(ttft);
    console.log(
      `round ${r + 1} flash attention ${fa}: first token ${ttft.toFixed(2)} s, ` +
        `${(promptTokens / ttft).toFixed(0)} prompt tokens/s, load ${os.loadavg()[0].toFixed(2)}`,
    );
    session.dispose();
    await context.dispose();
  }
}
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(
  `mean first token: off ${mean(results.off).toFixed(2)} s (${(promptTokens / mean(results.off)).toFixed(0)} tok/s), ` +
    `on ${mean(results.on).toFixed(2)} s (${(promptTokens / mean(results.on)).toFixed(0)} tok/s); ` +
    `off / on ${(mean(results.off) / mean(results.on)).toFixed(2)}`,
);
process.exit(0);
