import { DEFAULT_LOCAL_EMBEDDER } from '@docqa/embeddings';
import { providerEnv } from './providers';

describe('providerEnv', () => {
  it('maps the extractive provider and passes only the model variables that are set', () => {
    const env = providerEnv('local', {
      LOCAL_EMBEDDER: 'hashing',
      LLM_MODEL_PATH: '',
      DATABASE_URL: 'postgres://not-passed',
    });
    expect(env).toEqual({ ANSWER_PROVIDER: 'extractive', LOCAL_EMBEDDER: 'hashing' });
  });

  it("runs the product's default local embedder unless the run names one", () => {
    expect(providerEnv('local', {})).toEqual({
      ANSWER_PROVIDER: 'extractive',
      LOCAL_EMBEDDER: DEFAULT_LOCAL_EMBEDDER,
    });
    expect(providerEnv('local', { LOCAL_EMBEDDER: 'minilm' }).LOCAL_EMBEDDER).toBe('minilm');
  });

  it('gives the local model a long timeout unless one is set', () => {
    expect(providerEnv('local-llm', {}).LLM_TIMEOUT_MS).toBe(String(20 * 60_000));
    expect(providerEnv('local-llm', { LLM_TIMEOUT_MS: '5000' }).LLM_TIMEOUT_MS).toBe('5000');
  });

  it('refuses the openai provider without a server to talk to', () => {
    expect(() => providerEnv('openai', {})).toThrow(/OPENAI_BASE_URL/);
    expect(providerEnv('openai', { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' })).toMatchObject({
      ANSWER_PROVIDER: 'openai',
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
    });
  });
});
