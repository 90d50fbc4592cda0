import { LocalHashingEmbedder } from './local-hashing.embedder';

const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('LocalHashingEmbedder', () => {
  const e = new LocalHashingEmbedder();

  it('is deterministic, L2-normalised and sized by dimensions', async () => {
    const [a] = await e.embedDocuments(['Set all page margins with the geometry package']);
    const b = await e.embedQuery('Set all page margins with the geometry package');
    expect(a).toEqual(b);
    expect(a).toHaveLength(768);
    expect(Math.sqrt(cos(a, a))).toBeCloseTo(1, 10);
    expect(new LocalHashingEmbedder({ dimensions: 512 }).embed('x')).toHaveLength(512);
    expect(e.modelName).toBe('docqa-local-hash-v1');
    expect(() => new LocalHashingEmbedder({ dimensions: 3 })).toThrow(RangeError);
  });

  it('never returns a zero vector', () => {
    for (const t of ['', '   ', '?!.', '😀']) {
      expect(Math.sqrt(cos(e.embed(t), e.embed(t)))).toBeCloseTo(1, 10);
    }
  });

  it('puts misspellings and word forms close to the original', () => {
    const doc = e.embed('The geometry package sets page margins and paper size');
    const unrelated = e.embed('Mnesia transactions replicate tables across Erlang nodes');
    const typo = e.embed('geomtry margns');
    expect(cos(typo, doc)).toBeGreaterThan(0.1);
    expect(cos(typo, doc)).toBeGreaterThan(2 * cos(typo, unrelated));
    expect(cos(e.embed('margin'), doc)).toBeGreaterThan(0.1);
    expect(cos(e.embed('papers sizes'), doc)).toBeGreaterThan(cos(e.embed('papers sizes'), unrelated));
  });

  it('embeds text alike whatever its case, accents and unicode form', () => {
    expect(cos(e.embed('café crème'), e.embed('CAFE CREME'))).toBeCloseTo(1, 6);
    expect(cos(e.embed('日本語の検索'), e.embed('日本語の検索'))).toBeCloseTo(1, 6);
  });

  it('embeds a batch in slices, letting the event loop run between them, and stops when aborted', async () => {
    const texts = Array.from(
      { length: 400 },
      (_, i) => `chunk ${i} about page margins and geometry ${i * 7}`,
    );
    let done = false;
    const batch = e.embedDocuments(texts).then((v) => ((done = true), v));
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false); // the loop ran before the batch ended
    expect(await batch).toEqual(texts.map((t) => e.embed(t)));

    const ac = new AbortController();
    const aborted = e.embedDocuments(texts, { signal: ac.signal });
    await new Promise((r) => setImmediate(r));
    ac.abort();
    await expect(aborted).rejects.toThrow(/abort/i);
  });
});
