import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LlamaGenerator } from './llama.generator';
import { PromptRate } from './prompt-rate';
import { defaultLlmThreads, LlamaRuntime } from './llama-runtime';
import { SerialQueue } from './serial-queue';
import {
  collect,
  expectCitedOrNotFound,
  passages,
  southPlantQuestion,
  useTestLlama,
} from '../../../../test/support/llama-fixture';

/**
 * How the local generative provider's calls run on node-llama-cpp with a real model (SmolLM2-135M):
 * one at a time on one context sequence, aborted, timed out, on the threads and attention it is
 * given, and what a missing or broken model file gives. What the model writes is in llama.spec.ts.
 */
describe('local generative provider (node-llama-cpp, SmolLM2-135M)', () => {
  const llama = useTestLlama();
  const { options, generator } = llama;
  let runtime: LlamaRuntime;
  beforeAll(() => void (runtime = llama.runtime));

  it('serialises calls on the one context sequence', async () => {
    const spans: Array<[number, number]> = [];
    const job = () =>
      runtime.run('test', undefined, async (m) => {
        const start = Date.now();
        m.countTokens('warm');
        await new Promise((r) => setTimeout(r, 150));
        spans.push([start, Date.now()]);
      });
    const answers = Promise.all([
      collect(
        generator({ maxTokens: 30 }).generate({
          question: 'When did the North Plant open?',
          query: 'North Plant open',
          history: [],
          passages,
        }),
      ),
      collect(
        generator({ maxTokens: 30 }).generate({
          question: 'Who works there?',
          query: 'staff',
          history: [],
          passages,
        }),
      ),
    ]);
    await Promise.all([job(), job(), job()]);
    for (const r of await answers) expectCitedOrNotFound(r.answer, [3, 8]);
    spans.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1]);
  });

  it("keeps the previous call's shared instructions, never its passages: an answer is the one a fresh sequence gives", async () => {
    const other = {
      question: 'What colour is the reservoir tower?',
      query: 'reservoir tower colour',
      history: [],
      passages: [
        { n: 1, fileName: 'tower.pdf', pageNumber: '9', text: 'The reservoir tower is painted green.' },
      ],
    };
    const asked = southPlantQuestion;
    await collect(generator({ maxTokens: 30 }).generate(other));
    const after = await collect(generator({ maxTokens: 30 }).generate(asked));
    // the same question again: its whole prompt is already in the sequence
    const again = await collect(generator({ maxTokens: 30 }).generate(asked));
    const fresh = new LlamaRuntime(options());
    try {
      const alone = await collect(
        new LlamaGenerator(fresh, { promptTokenBudget: 1500, maxAnswerTokens: 30 }).generate(asked),
      );
      expect(after.answer).toBe(alone.answer);
      expect(again.answer).toBe(alone.answer);
      expect(after.answer).not.toMatch(/green|tower/i);
      // the instructions (system prompt and chat template) were not evaluated again
      expect(after.calls[0].inputTokens).toBeLessThan(alone.calls[0].inputTokens - 20);
      expect(again.calls[0].inputTokens).toBeLessThan(after.calls[0].inputTokens);
    } finally {
      await fresh.close();
    }
  });

  it('stops generating when the caller aborts, and the next call still answers', async () => {
    const abort = new AbortController();
    const events = generator({ maxTokens: 400 }).generate({
      question: 'Describe both plants in detail.',
      query: 'plants',
      history: [],
      passages,
      signal: abort.signal,
    });
    // Counted in text events, not seconds (the machine may be loaded): after the abort at the first
    // delta, the stream ends at once instead of running on to its 400 tokens.
    let afterAbort = 0;
    const failed = (async () => {
      for await (const e of events) {
        if (e.type !== 'text') continue;
        if (abort.signal.aborted) afterAbort++;
        else abort.abort(new DOMException('client went away', 'AbortError'));
      }
    })();
    await expect(failed).rejects.toMatchObject({ name: 'AbortError' });
    expect(afterAbort).toBeLessThanOrEqual(1);
    const r = await collect(
      generator({ maxTokens: 30 }).generate({ question: 'Staff?', query: 'staff', history: [], passages }),
    );
    expectCitedOrNotFound(r.answer, [3, 8]);
  });

  it('fails with DEPENDENCY_UNAVAILABLE when a call exceeds LLM_TIMEOUT_MS', async () => {
    const slow = new LlamaRuntime(options({ timeoutMs: 1 }));
    try {
      await expect(
        collect(
          new LlamaGenerator(slow, { promptTokenBudget: 1500, maxAnswerTokens: 50 }).generate({
            question: 'Staff?',
            query: 'staff',
            history: [],
            passages,
          }),
        ),
      ).rejects.toMatchObject({
        code: 'DEPENDENCY_UNAVAILABLE',
        message: expect.stringContaining('timed out'),
      });
    } finally {
      await slow.close();
    }
  });

  it("computes on one thread per CPU math core by default, not node-llama-cpp's default", async () => {
    const unset = new LlamaRuntime(options({ threads: undefined }));
    try {
      const used = await unset.run('Thread probe', undefined, async (m) => ({
        threads: m.context.currentThreads,
        cores: m.llama.cpuMathCores,
      }));
      expect(used.threads).toBe(used.cores);
      expect(defaultLlmThreads({ cpuMathCores: 0 })).toBe(1);
    } finally {
      await unset.close();
    }
  });

  it('computes with flash attention when LLM_FLASH_ATTENTION is on, and still answers with cited sentences', async () => {
    const withFlash = new LlamaRuntime(options({ flashAttention: true }));
    try {
      expect(
        await withFlash.run('Flash attention probe', undefined, async (m) => m.context.flashAttention),
      ).toBe(true);
      expect(
        await runtime.run('Flash attention probe', undefined, async (m) => m.context.flashAttention),
      ).toBe(false);
      const r = await collect(
        new LlamaGenerator(withFlash, { promptTokenBudget: 1500, maxAnswerTokens: 60 }).generate(
          southPlantQuestion,
        ),
      );
      expect(r.answer.length).toBeGreaterThan(0);
      expectCitedOrNotFound(r.answer, [3, 8]);
    } finally {
      await withFlash.close();
    }
  });
});

describe('PromptRate', () => {
  it('learns tokens per second from prompts long enough to tell, weighting the newest', () => {
    const r = new PromptRate(64, 0.5);
    expect(r.tokensWithin(1000)).toBeUndefined();
    r.record(10, 1); // too short to measure
    r.record(500, 0); // no time: not a measurement
    expect(r.tokensPerSecond).toBeUndefined();
    r.record(1000, 10_000); // 100 tokens/s
    expect(r.tokensPerSecond).toBeCloseTo(100);
    expect(r.tokensWithin(12_000)).toBe(1200);
    r.record(500, 10_000); // 50 tokens/s: half the weight
    expect(r.tokensPerSecond).toBeCloseTo(75);
    expect(r.tokensWithin(2000)).toBe(150);
  });
});

describe('local generative provider without a usable model file', () => {
  it('reports a missing file as CAPABILITY_DISABLED before any work', async () => {
    const r = new LlamaRuntime({
      modelPath: '/nonexistent/model.gguf',
      contextSize: 512,
      timeoutMs: 1000,
      maxQueue: 1,
    });
    const g = new LlamaGenerator(r, { promptTokenBudget: 100, maxAnswerTokens: 10 });
    expect(() => g.assertAvailable()).toThrow(expect.objectContaining({ code: 'CAPABILITY_DISABLED' }));
    await expect(r.run('x', undefined, async () => 1)).rejects.toMatchObject({ code: 'CAPABILITY_DISABLED' });
  });

  it('reports a file that is not a GGUF model as DEPENDENCY_UNAVAILABLE, never a crash', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-llm-'));
    const bad = path.join(dir, 'broken.gguf');
    fs.writeFileSync(bad, 'this is not a model');
    const r = new LlamaRuntime({ modelPath: bad, contextSize: 512, timeoutMs: 30_000, maxQueue: 1 });
    try {
      await expect(r.run('x', undefined, async () => 1)).rejects.toMatchObject({
        code: 'DEPENDENCY_UNAVAILABLE',
        message: 'The local language model could not be loaded',
      });
    } finally {
      await r.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SerialQueue', () => {
  it('refuses a call when too many wait, and lets a waiting call leave on abort', async () => {
    const q = new SerialQueue(1, 'The model');
    let releaseFirst!: () => void;
    const first = q.run(() => new Promise<void>((r) => (releaseFirst = r)));
    const abort = new AbortController();
    const second = q.run(async () => 'second ran', abort.signal);
    await expect(q.run(async () => 'third')).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    abort.abort(new DOMException('gone', 'AbortError'));
    await expect(second).rejects.toMatchObject({ name: 'AbortError' });
    let fourthRan = false;
    const fourth = q.run(async () => {
      fourthRan = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(fourthRan).toBe(false); // still behind the first
    releaseFirst();
    await first;
    await fourth;
    expect(fourthRan).toBe(true);
  });
});
