import { GenerateInput, GenerationEvent, Generator, NO_ANSWER_TEXT } from '../generation.port';
import { withEvidenceFallback } from './evidence-fallback';

/** A generator that replies with the given pieces of text. */
function replying(pieces: string[]): Generator {
  return {
    provider: 'openai',
    models: ['m'],
    defaultModel: 'm',
    async *generate(): AsyncIterable<GenerationEvent> {
      for (const text of pieces) yield { type: 'text', text };
      yield { type: 'usage', call: { model: 'm', inputTokens: 1, outputTokens: 1 } };
    },
  } as Generator;
}

const input: GenerateInput = { question: 'q', query: 'q', history: [], passages: [] };

async function answerOf(g: Generator): Promise<string> {
  let text = '';
  for await (const e of g.generate(input)) if (e.type === 'text') text += e.text;
  return text;
}

describe('withEvidenceFallback', () => {
  it('replaces a bare refusal with the evidence answer when the passages are about the question', async () => {
    const g = withEvidenceFallback(replying([NO_ANSWER_TEXT]), () => 'Closest evidence [1] [2]');
    expect(await answerOf(g)).toBe('Closest evidence [1] [2]');
  });

  it('keeps the refusal when the passages are not about the question', async () => {
    expect(await answerOf(withEvidenceFallback(replying([NO_ANSWER_TEXT]), () => null))).toBe(NO_ANSWER_TEXT);
  });

  it('passes answers through unchanged, however they end', async () => {
    const judge = jest.fn(() => 'evidence');
    const g = withEvidenceFallback(replying(['The margin is 2cm. [1] ', NO_ANSWER_TEXT]), judge);
    expect(await answerOf(g)).toBe(`The margin is 2cm. [1] ${NO_ANSWER_TEXT}`);
    expect(judge).not.toHaveBeenCalled();
    expect(g.provider).toBe('openai');
  });
});
