import { loadConfig } from '@docqa/common';
import type { Reranker } from './generation.port';
import { LocalReranker } from './local/local.reranker';
import { LOCAL_RERANK_SEARCH_WEIGHT } from './tuning';
import {
  createGenerator,
  createGenerators,
  createLlamaRuntime,
  createLocalGenerator,
  createReranker,
  createRewriter,
  createTitler,
  EMBEDDED_DEFAULT_PROVIDER,
  resolveAnswerProvider,
} from './answers.module';

const cfg = (env: Record<string, string>) =>
  loadConfig({ LLM_MODEL_PATH: '/nonexistent/model.gguf', ...env } as NodeJS.ProcessEnv);

function providers(env: Record<string, string>) {
  const c = cfg(env);
  const runtime = createLlamaRuntime(c);
  const generators = createGenerators(c, createLocalGenerator(), runtime);
  const generator = createGenerator(c, generators, runtime);
  return {
    generators: generators.map((g) => g.provider),
    generator: generator.provider,
    rewriter: createRewriter(c, runtime, generator).constructor.name,
    titler: createTitler(c, runtime, generator).constructor.name,
  };
}

describe('ANSWER_PROVIDER', () => {
  it('auto: Cohere, else OpenAI-compatible, else the embedded default', () => {
    expect(resolveAnswerProvider(cfg({ COHERE_API_KEY: 'k', OPENAI_BASE_URL: 'http://x/v1' }))).toBe(
      'cohere',
    );
    expect(resolveAnswerProvider(cfg({ OPENAI_BASE_URL: 'http://x/v1' }))).toBe('openai');
    expect(resolveAnswerProvider(cfg({ OPENAI_API_KEY: 'sk' }))).toBe('openai');
    expect(resolveAnswerProvider(cfg({}))).toBe(EMBEDDED_DEFAULT_PROVIDER);
  });

  it('an explicit provider without its settings stops the process with a configuration error', () => {
    expect(() => resolveAnswerProvider(cfg({ ANSWER_PROVIDER: 'openai' }))).toThrow(/OPENAI_BASE_URL/);
    expect(() => resolveAnswerProvider(cfg({ ANSWER_PROVIDER: 'cohere' }))).toThrow(/COHERE_API_KEY/);
  });

  it('binds answers, rewrites and titles to one provider; config.model can still pick the others', () => {
    expect(providers({ ANSWER_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://x/v1' })).toEqual({
      generators: ['local', 'local-llm', 'openai'],
      generator: 'openai',
      rewriter: 'OpenAiRewriter',
      titler: 'OpenAiTitler',
    });
    // LLM_EVIDENCE=chosen: the extractive rules choose, on the extractive rewrite
    expect(providers({ ANSWER_PROVIDER: 'local-llm' })).toEqual({
      generators: ['local', 'local-llm'],
      generator: 'local-llm',
      rewriter: 'LocalRewriter',
      titler: 'LlamaTitler',
    });
    expect(providers({ ANSWER_PROVIDER: 'extractive', COHERE_API_KEY: 'k' })).toEqual({
      generators: ['local', 'local-llm', 'cohere'],
      generator: 'local',
      rewriter: 'LocalRewriter',
      titler: 'LocalTitler',
    });
  });

  it('auto without any provider configured and no local model file answers extractively', () => {
    expect(providers({}).generator).toBe('local');
  });
});

describe('createReranker', () => {
  const order = async (r: Reranker | null) => {
    if (!r) throw new Error('no reranker');
    // search order: an unrelated page, then the close one
    const out = await r.rerank({
      query: 'set margin 2cm',
      documents: ['Fonts and colours of tables.', 'Set a margin of 2cm with geometry.'],
      topN: 2,
    });
    return out.results.map((x) => x.index);
  };

  it('the local reranker fuses in the search order with LOCAL_RERANK_SEARCH_WEIGHT', async () => {
    expect(LOCAL_RERANK_SEARCH_WEIGHT).toBe(1);
    expect(createReranker(cfg({}))).toBeInstanceOf(LocalReranker);
    // 1: the two orders tie (first in one, last in the other) and the lexical one wins
    expect(await order(createReranker(cfg({})))).toEqual([1, 0]);
    expect(await order(new LocalReranker({ searchOrderWeight: 0 }))).toEqual([1, 0]);
    expect(await order(new LocalReranker({ searchOrderWeight: 2 }))).toEqual([0, 1]);
  });

  it('Cohere without a rerank model has no reranker', () => {
    expect(createReranker(cfg({ COHERE_API_KEY: 'k' }))).toBeNull();
  });
});
