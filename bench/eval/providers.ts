/* `npm run eval -- --provider <p>`: which answer provider the evaluated app uses. */
import { passEnv, productEmbedderEnv } from '../../test/support/tuning-env';

/** `local` is the extractive answerer (the `config.model` value); the others are generative. */
export const PROVIDERS = ['local', 'local-llm', 'openai'] as const;
export type EvalProvider = (typeof PROVIDERS)[number];

/**
 * Environment of the evaluated app: ANSWER_PROVIDER, and the provider's settings from the
 * environment of the run, as an operator would configure them (local-llm: LLM_MODEL_PATH, default
 * the installed Qwen2.5-Coder-1.5B; openai: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL) and the
 * local embedder (the product's default model unless LOCAL_EMBEDDER is set). Tuning values (fusion, margins, budgets) are constants: libs/answers/src/tuning.ts, libs/search/src/tuning.ts.
 */
export function providerEnv(
  provider: EvalProvider,
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = { ANSWER_PROVIDER: provider === 'local' ? 'extractive' : provider };
  const pass = [
    'LLM_MODEL_PATH',
    'LLM_TIMEOUT_MS',
    'OPENAI_BASE_URL',
    'OPENAI_API_KEY',
    'OPENAI_MODEL',
    'OPENAI_TIMEOUT_MS',
  ];
  Object.assign(env, passEnv(pass, from), productEmbedderEnv(from));
  // Sequential questions on shared cores: one call may wait long for the model.
  if (provider === 'local-llm') env.LLM_TIMEOUT_MS ??= String(20 * 60_000);
  if (provider === 'openai' && !env.OPENAI_BASE_URL && !env.OPENAI_API_KEY) {
    throw new Error(
      '--provider openai needs OPENAI_BASE_URL (and OPENAI_API_KEY, OPENAI_MODEL) in the environment',
    );
  }
  return env;
}
