import type { GenerateInput, GenerationEvent, Generator } from '../generation.port';
import { NO_ANSWER_TEXT } from '../generation.port';

/** What the extractive answerer makes of the passages when a model finds no answer in them. */
export type EvidenceJudge = (input: GenerateInput) => string | null;

/**
 * A generative provider that shows its evidence as the extractive answerer does: when the model
 * replies that it found no answer (the not-found answer, and nothing before it) while the
 * passages are about the question (`judge` gives the evidence answer: one sentence and the markers
 * of the best pages), that answer replaces the bare refusal. Where the passages are not about the
 * question (`judge` gives null), the not-found answer stays. The model's answers pass unchanged,
 * streamed as they come.
 */
export function withEvidenceFallback<G extends Generator>(generator: G, judge: EvidenceJudge): G {
  const generate = generator.generate.bind(generator);
  const wrapped = Object.create(generator) as G;
  wrapped.generate = async function* (input: GenerateInput): AsyncIterable<GenerationEvent> {
    let said = false;
    for await (const e of generate(input)) {
      if (e.type === 'text' && !said && e.text.trim() === NO_ANSWER_TEXT) {
        said = true;
        yield { type: 'text', text: judge(input) ?? e.text };
        continue;
      }
      if (e.type === 'text' && e.text) said = true;
      yield e;
    }
  };
  return wrapped;
}
