/* What the local-model benches share: the GGUF they load and their form-like passages. */
import * as os from 'node:os';
import * as path from 'node:path';

/** LLM_MODEL_PATH, else the file `npm run models:install -- llm` installs. */
export const modelPath =
  process.env.LLM_MODEL_PATH ??
  path.join(
    process.env.DOCQA_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'docqa'),
    'models',
    'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
  );

/** A passage of an accident report, about 90 tokens. */
export const REPORT_PARAGRAPH =
  'The pilot reported that during the landing roll the airplane veered to the left and struck a runway light. ' +
  'The pilot held a private pilot certificate with 320 hours total flight time, of which 45 hours were in the ' +
  'accident airplane make and model. Weather at the time of the accident was visual meteorological conditions ' +
  'with wind from 270 degrees at 12 knots. ';

/** `count` numbered passages of `paragraph` (twice each) and a question on them. */
export function passagesPrompt(count, paragraph = REPORT_PARAGRAPH) {
  const passages = Array.from({ length: count }, (_, i) => `[${i + 1}] ${paragraph.repeat(2)}`).join('\n\n');
  return `Passages:\n${passages}\n\nQuestion: How many hours of total flight time did the pilot have?`;
}
