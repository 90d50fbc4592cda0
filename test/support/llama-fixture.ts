import { GenerationEvent, NO_ANSWER_TEXT, Passage } from '@docqa/answers/generation.port';
import { LlamaRuntime, LlamaRuntimeOptions } from '@docqa/answers/llama/llama-runtime';
import { LlamaGenerator } from '@docqa/answers/llama/llama.generator';
import { testLlmModelPath } from './llm-model';

/**
 * What the unit specs of the local generative provider (libs/answers/src/llama) share: a runtime
 * on the test model (SmolLM2-135M, see llm-model.ts), two passages and a question they answer, and
 * checks of what the model wrote.
 */
export const passages: Passage[] = [
  {
    n: 3,
    fileName: 'water.pdf',
    pageNumber: '2',
    text: 'The North Plant opened in 1965 and the South Plant opened in 1998.',
  },
  {
    n: 8,
    fileName: 'staff.pdf',
    pageNumber: '5',
    text: 'The water authority employs 287 people across both plants.',
  },
];

/** A question the passages answer, for tests that compare answers to it. */
export const southPlantQuestion = {
  question: 'When did the South Plant open?',
  query: 'South Plant open',
  history: [],
  passages,
};

/** Every sentence ends with a marker of a given passage, or the answer is the no-answer text. */
export function expectCitedOrNotFound(answer: string, allowed: number[]) {
  if (answer === NO_ANSWER_TEXT) return;
  const sentences = answer.split(/(?<=\[\d+\])\s+/);
  for (const s of sentences) {
    const m = /\[(\d+)\]$/.exec(s);
    expect(m).not.toBeNull();
    expect(allowed).toContain(Number(m![1]));
    expect(s.slice(0, -m![0].length)).not.toMatch(/\[\d+\]/);
  }
}

export async function collect(events: AsyncIterable<GenerationEvent>) {
  const texts: string[] = [];
  const calls: Array<Extract<GenerationEvent, { type: 'usage' }>['call']> = [];
  for await (const e of events) {
    if (e.type === 'text') texts.push(e.text);
    else calls.push(e.call);
  }
  return { texts, answer: texts.join(''), calls };
}

export interface TestLlama {
  /** A runtime on the test model, opened before the enclosing describe's tests, closed after. */
  runtime: LlamaRuntime;
  /** The runtime's options, for another runtime on the same model. */
  options(o?: Partial<LlamaRuntimeOptions>): LlamaRuntimeOptions;
  /** A generator on `runtime` (passage token budget 1500, 80 answer tokens unless told). */
  generator(o?: { budget?: number; maxTokens?: number }): LlamaGenerator;
}

/** Registers the hooks that open and close a TestLlama's runtime; read `runtime` inside tests and hooks. */
export function useTestLlama(): TestLlama {
  let modelPath: string;
  const llama = {
    options: (o: Partial<LlamaRuntimeOptions> = {}): LlamaRuntimeOptions => ({
      modelPath,
      contextSize: 2048,
      threads: 1,
      timeoutMs: 120_000,
      maxQueue: 8,
      ...o,
    }),
    generator: (o: { budget?: number; maxTokens?: number } = {}) =>
      new LlamaGenerator(llama.runtime, {
        promptTokenBudget: o.budget ?? 1500,
        maxAnswerTokens: o.maxTokens ?? 80,
      }),
  } as TestLlama;
  beforeAll(async () => {
    modelPath = await testLlmModelPath();
    llama.runtime = new LlamaRuntime(llama.options());
  }, 300_000);
  afterAll(() => llama.runtime?.close());
  return llama;
}
