import { DomainError } from '@docqa/common';
import { FakeCohere, fakeVector, startFakeCohere } from '../../../test/support/fake-cohere';
import { COHERE_EMBED_BATCH, CohereEmbedder } from './cohere.embedder';

describe('CohereEmbedder (real SDK against a local v2 embed server)', () => {
  let fake: FakeCohere;
  const make = (o: Partial<ConstructorParameters<typeof CohereEmbedder>[0]> = {}) =>
    new CohereEmbedder({
      apiKey: 'test-key',
      model: 'embed-english-v3.0',
      baseUrl: fake.url,
      backoffMs: 5,
      ...o,
    });

  beforeEach(async () => {
    fake = await startFakeCohere({ apiKey: 'test-key' });
  });
  afterEach(() => fake.close());

  it('reports the model and its dimensions', () => {
    const e = make();
    expect(e.modelName).toBe('embed-english-v3.0');
    expect(e.dimensions).toBe(1024);
    expect(make({ model: 'embed-english-light-v3.0' }).dimensions).toBe(384);
    expect(() => make({ model: 'no-such-model' })).toThrow(/COHERE_EMBED_MODEL/);
  });

  it('embeds documents in batches of at most 96, in input order, as search_document', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => `chunk number ${i}`);
    const vectors = await make().embedDocuments(texts);
    expect(vectors).toHaveLength(200);
    expect(vectors[150]).toEqual(fakeVector(`search_document:chunk number 150`, 1024));
    expect(fake.calls.map((c) => c.body.texts?.length)).toEqual([96, 96, 8]);
    expect(COHERE_EMBED_BATCH).toBe(96);
    for (const c of fake.calls) {
      expect(c).toMatchObject({
        path: '/v2/embed',
        authorization: 'Bearer test-key',
        body: { model: 'embed-english-v3.0', input_type: 'search_document', embedding_types: ['float'] },
      });
    }
  });

  it('embeds a query as search_query', async () => {
    const v = await make().embedQuery('what is geometry');
    expect(v).toEqual(fakeVector('search_query:what is geometry', 1024));
    expect(fake.calls[0].body.input_type).toBe('search_query');
    expect(await make().embedDocuments([])).toEqual([]);
  });

  it('retries 429 and 5xx with backoff, then succeeds', async () => {
    fake.failNext(429, 503, 429);
    const v = await make().embedQuery('retry me');
    expect(v).toHaveLength(1024);
    expect(fake.calls).toHaveLength(4);
  });

  it('gives up after maxAttempts with DEPENDENCY_UNAVAILABLE', async () => {
    fake.failNext(429, 429, 429);
    await expect(make({ maxAttempts: 3 }).embedQuery('x')).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      message: expect.stringContaining('429'),
    });
    expect(fake.calls).toHaveLength(3);
  });

  it('does not retry client errors (401)', async () => {
    const e = new CohereEmbedder({
      apiKey: 'wrong',
      model: 'embed-english-v3.0',
      baseUrl: fake.url,
      backoffMs: 5,
    });
    const err = await e.embedQuery('x').catch((x: unknown) => x);
    expect(err).toBeInstanceOf(DomainError);
    expect(String((err as Error).message)).not.toContain('wrong');
    expect(fake.calls).toHaveLength(1);
  });
});
