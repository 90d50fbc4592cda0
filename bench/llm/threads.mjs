/* Time to the first token and time per token of the local generative model at several thread
 * counts (docs/adr/0019):
 *   node bench/llm/threads.mjs [threads,...]    e.g. `node bench/llm/threads.mjs 2,4` (default: 1,2,4)
 * LLM_MODEL_PATH names the GGUF (default: the one `npm run models:install -- llm` installs). The
 * prompt is about 1,000 tokens of form-like passages and a question; 12 tokens are generated. */
import * as path from 'node:path';
import { getLlama, LlamaChatSession } from 'node-llama-cpp';
import { modelPath, passagesPrompt } from './prompt.mjs';

const counts = (process.argv[2] ?? '1,2,4').split(',').map(Number);
const llama = await getLlama({ gpu: false, build: 'never' });
const model = await llama.loadModel({ modelPath, gpuLayers: 0 });
const user = passagesPrompt(6);
console.log(
  `model ${path.basename(modelPath)}, cpuMathCores ${llama.cpuMathCores}, node-llama-cpp default threads ${llama.maxThreads}, prompt ${model.tokenize(user).length} tokens`,
);
for (const threads of counts) {
  const context = await model.createContext({ contextSize: 4096, batchSize: 512, threads });
  const session = new LlamaChatSession({
    contextSequence: context.getSequence(),
    systemPrompt: 'Answer from the passages.',
  });
  const t0 = Date.now();
  let first = 0;
  let tokens = 0;
  await session.prompt(user, {
    maxTokens: 12,
    temperature: 0,
    onToken: (t) => {
      if (!first) first = Date.now() - t0;
      tokens += t.length;
    },
  });
  const total = Date.now() - t0;
  console.log(
    `threads ${threads}: first token ${(first / 1000).toFixed(1)} s, then ${((total - first) / Math.max(1, tokens - 1)).toFixed(0)} ms per token (${tokens} tokens)`,
  );
  await context.dispose();
}
await llama.dispose();
