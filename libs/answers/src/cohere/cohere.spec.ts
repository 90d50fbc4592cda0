import { FakeCohere, startFakeCohere } from '../../../../test/support/fake-cohere';
import type { GenerationEvent, Passage } from '../generation.port';
import { citedSpan, placeMarkers, StreamingMarkerPlacer } from './cohere-citations';
import { CohereGenerator } from './cohere.generator';
import { CohereReranker } from './cohere.reranker';
import { CohereRewriter } from './cohere.rewriter';
import { CohereTitler } from './cohere.titler';

const passages: Passage[] = [
  {
    n: 1,
    fileName: 'a.pdf',
    pageNumber: '3',
    text: 'The default value of outputtemplate is %j.%c in MetaPost.',
  },
  { n: 2, fileName: 'b.pdf', pageNumber: '9', text: 'Assign "svg" to outputformat to get SVG output files.' },
];

describe('Cohere citation mapping', () => {
  it('maps document sources to passage numbers (our ids and Cohere doc:i ids)', () => {
    expect(citedSpan({ end: 4, sources: [{ type: 'document', id: '2' }] }, passages)).toEqual({
      end: 4,
      passages: [2],
    });
    expect(citedSpan({ end: 4, sources: [{ type: 'document', id: 'doc:0' }] }, passages)).toEqual({
      end: 4,
      passages: [1],
    });
    expect(
      citedSpan(
        {
          end: 4,
          sources: [
            { type: 'tool', id: '1' },
            { type: 'document', id: '7' },
          ],
        },
        passages,
      ),
    ).toBeUndefined();
  });

  it('places markers after the cited span (and its closing punctuation), escaping stray brackets', () => {
    const text = 'It is %j.%c. Use svg [3] output.';
    expect(
      placeMarkers(text, [
        { end: 11, passages: [1] },
        { end: 31, passages: [2, 1] },
      ]),
    ).toBe('It is %j.%c. [1] Use svg (3) output. [2][1]');
  });

  it('streams with markers at exact offsets while the sentence is held back', () => {
    const p = new StreamingMarkerPlacer();
    let out = p.pushText('The default is ');
    out += p.pushText('%j.%c');
    p.pushCitation({ end: 20, passages: [1] });
    out += p.pushText('. Then more');
    out += p.pushCitation({ end: 3, passages: [2] });
    out += p.pushText(' text.');
    out += p.flush();
    expect(out).toBe('The default is %j.%c. [1] [2] Then more text.');
  });
});

describe('Cohere generation ports (real SDK against the local v2 server)', () => {
  let fake: FakeCohere;
  const conn = () => ({ apiKey: 'k', baseUrl: fake.url, backoffMs: 5 });

  beforeEach(async () => {
    fake = await startFakeCohere({ apiKey: 'k' });
  });
  afterEach(() => fake.close());

  async function run(g: CohereGenerator, stream: boolean) {
    const events: GenerationEvent[] = [];
    for await (const e of g.generate({
      question: 'What is the default?',
      query: 'default outputtemplate',
      history: [],
      passages,
      stream,
    }))
      events.push(e);
    return events;
  }

  it('answers with chat (JSON): documents by passage number, citations as markers, billed usage', async () => {
    const events = await run(new CohereGenerator({ ...conn(), model: 'command-r-08-2024' }), false);
    const text = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    expect(text).toMatch(/^From the documents: The default value of .*\. \[1\] Assign .*\. \[2\]$/);
    expect(events.at(-1)).toEqual({
      type: 'usage',
      call: { model: 'command-r-08-2024', inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    });
    const call = fake.calls[0];
    expect(call.path).toBe('/v2/chat');
    expect(call.body.stream).toBeFalsy();
    expect(call.body.documents?.[0]).toMatchObject({ id: '1', data: { snippet: passages[0].text } });
  });

  it('streams with chatStream and gives the same answer', async () => {
    const g = new CohereGenerator({ ...conn(), model: 'command-r-08-2024' });
    const streamed = await run(g, true);
    const texts = streamed.flatMap((e) => (e.type === 'text' ? [e.text] : []));
    expect(texts.length).toBeGreaterThan(1);
    const json = await run(g, false);
    expect(texts.join('')).toBe(json.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join(''));
    expect(fake.calls[0].body.stream).toBe(true);
  });

  it('retries 429/503 before the stream starts, with the shared policy', async () => {
    fake.failNext(429, 503);
    const events = await run(new CohereGenerator({ ...conn(), model: 'command-r' }), true);
    expect(events.some((e) => e.type === 'text')).toBe(true);
    expect(fake.calls).toHaveLength(3);
  });

  it('fails with DEPENDENCY_UNAVAILABLE when the stream breaks mid-answer', async () => {
    fake.breakStreamAfter = 4;
    await expect(run(new CohereGenerator({ ...conn(), model: 'command-r' }), true)).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
    });
  });

  it('rewrites, titles and reranks', async () => {
    const rw = await new CohereRewriter({ ...conn(), model: 'command-r' }).rewrite({
      question: 'And its default?',
      history: [{ role: 'user', content: 'What is outputtemplate?' }],
    });
    expect(rw.query).toBe('And its default? (standalone)');
    expect(rw.call).toMatchObject({ model: 'command-r' });
    const t = await new CohereTitler({ ...conn(), model: 'command-r' }).title({
      messages: [{ role: 'user', content: 'How do MetaPost templates work?' }],
    });
    expect(t.title).toBe('How do MetaPost templates');
    const rr = await new CohereReranker({ ...conn(), model: 'rerank-v3.5' }).rerank({
      query: 'svg output files',
      documents: passages.map((p) => p.text),
      topN: 2,
    });
    expect(rr.results.map((r) => r.index)).toEqual([1, 0]);
    expect(fake.calls.at(-1)).toMatchObject({ path: '/v2/rerank', body: { model: 'rerank-v3.5', top_n: 2 } });
  });
});
