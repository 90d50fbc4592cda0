import type { SearchHit, SearchIndex, StoredChunk } from '@docqa/search';
import { isForeignTopic, neighbourReads, PassageReads, topicProbeTerms } from './passage-reads';

const chunk = (documentId: string, chunkIndex: number, text: string): StoredChunk => ({
  id: `${documentId}:${chunkIndex}`,
  accountId: 1,
  docSetName: 'd',
  documentId,
  fileName: `${documentId}.pdf`,
  pageNumber: '1',
  sourceType: 'S3',
  sourceId: `k/${documentId}.pdf`,
  chunkIndex,
  text,
});
const hit = (c: StoredChunk): SearchHit => ({ chunk: c, score: 1 });

describe('topic probe terms', () => {
  it('probes only the terms no passage holds', () => {
    const hits = [hit(chunk('a', 0, 'Mnesia tables are replicated across nodes.'))];
    expect(topicProbeTerms('How are Mnesia tables replicated?', hits).probe).toEqual([]);
    const { terms, probe } = topicProbeTerms('How do I run Mnesia inside a Docker container?', hits);
    expect(terms.length).toBeGreaterThan(probe.length);
    expect(probe).toEqual(expect.arrayContaining(['docker', 'container']));
    expect(probe).not.toContain('mnesia');
  });

  it('does not probe the names a question defines itself', () => {
    const hits = [
      hit(chunk('a', 0, 'Inventories 1,559 1,642. Accounts payable 2,854 2,746. Cost of sales 11,108.')),
    ];
    const question =
      'What is the cash conversion cycle (CCC)? CCC is defined as: DIO + DSO - DPO. DIO is defined as: 365 * inventory / cost of sales.';
    const { probe } = topicProbeTerms(question, hits);
    expect(probe).not.toContain('ccc');
    expect(probe).not.toContain('dio');
    expect(probe).toContain('dso'); // used, never defined
    expect(topicProbeTerms('How long is the cash conversion cycle at CCC Inc.?', hits).probe).toContain(
      'ccc',
    );
  });

  it('does not probe fiscal periods, nor line items named as analysts name them', () => {
    const hits = [hit(chunk('a', 0, 'Purchases of property, plant and equipment (PP&E) (1,577) (1,373)'))];
    const { probe } = topicProbeTerms("What was ACME's FY2018 capital expenditure in Q2?", hits);
    expect(probe).toEqual(['acme']);
    expect(topicProbeTerms('What was the FY2018 capital gain on bonds?', hits).probe).toEqual(
      expect.arrayContaining(['capital', 'gain', 'bonds']),
    );
  });

  it('calls a topic foreign when two probed terms, or a quarter of the terms, occur nowhere', () => {
    expect(isForeignTopic(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'], ['b', 'c'], [false, false])).toBe(
      true,
    );
    expect(isForeignTopic(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'], ['b', 'c'], [true, false])).toBe(
      false,
    );
    expect(isForeignTopic(['a', 'b', 'c', 'd'], ['b'], [false])).toBe(true);
  });

  it('calls a topic foreign when one name the question writes occurs nowhere', () => {
    const hits = [
      hit(chunk('a', 0, 'The Cessna 172 departed from Tucson, AZ. The pilot reported 1,200 hours total.')),
    ];
    const q = "What was the pilot's total flight time in the Cessna 172 accident near Chandler, Arizona?";
    const { terms, probe, names } = topicProbeTerms(q, hits);
    expect(probe[0]).toBe('chandler'); // names are probed first
    const found = probe.map((t) => t !== 'chandler');
    expect(isForeignTopic(terms, probe, found, names)).toBe(true);
    // the same term, not written as a name, is one absent word among many
    expect(isForeignTopic(terms, probe, found)).toBe(false);
    // a name the docsets hold elsewhere is no foreign topic
    expect(
      isForeignTopic(
        terms,
        probe,
        probe.map(() => true),
        names,
      ),
    ).toBe(false);
  });
});

describe('neighbour reads', () => {
  it('reads the next chunk of a passage cut mid-sentence and the previous of one opened mid-sentence, unless retrieved', () => {
    const cut = chunk('a', 3, 'The tolerance is set after every cold start to');
    const opened = chunk('b', 2, 'millimetres, as the manual says. The next step follows.');
    const whole = chunk('c', 0, 'A whole sentence.');
    const { followedBy, precededBy } = neighbourReads([hit(cut), hit(opened), hit(whole)]);
    expect([...followedBy.keys()]).toEqual(['a:4']);
    expect([...precededBy.keys()]).toEqual(['b:1']);
    const withNext = neighbourReads([hit(cut), hit(chunk('a', 4, 'exactly 42 millimetres.'))]);
    expect([...withNext.followedBy.keys()]).toEqual([]);
  });
});

describe('PassageReads', () => {
  const calls: unknown[] = [];
  const index = (fail = false) =>
    ({
      chunksAndTerms: async (q: unknown) => {
        calls.push(q);
        if (fail) throw new Error('engine down');
        // The next page goes on with the sentence the passage's page left open.
        const next = { ...chunk('a', 4, 'exactly two millimetres. Then more.'), pageNumber: '2' };
        return { chunks: [next], termsFound: [false, false] };
      },
    }) as unknown as SearchIndex;
  const hits = [hit(chunk('a', 3, 'After every cold start the quokka routine sets the drift tolerance to'))];

  beforeEach(() => (calls.length = 0));

  it('makes one read for the probes and the neighbours, and completes the cut sentence', async () => {
    const r = await new PassageReads(index()).read(
      { accountId: 1, docSetNames: ['d'] },
      'How do I run Mnesia inside Docker?',
      hits,
      true,
    );
    expect(calls).toEqual([
      { accountId: 1, docSetNames: ['d'], ids: ['a:4'], terms: expect.arrayContaining(['mnesia', 'docker']) },
    ]);
    expect(r.uncovered).toBe(true);
    expect(r.completions.get('a:3')).toEqual({ head: '', tail: ' exactly two millimetres.' });
  });

  it('skips the probes for a generator that judges relevance itself; a failed read of neighbours alone is not fatal', async () => {
    const r = await new PassageReads(index(true)).read(
      { accountId: 1, docSetNames: ['d'] },
      'Mnesia Docker',
      hits,
      false,
    );
    expect(calls).toEqual([{ accountId: 1, docSetNames: ['d'], ids: ['a:4'], terms: [] }]);
    expect(r).toEqual({ uncovered: false, completions: new Map(), engineRead: true });
    await expect(
      new PassageReads(index(true)).read({ accountId: 1, docSetNames: ['d'] }, 'Mnesia Docker', hits, true),
    ).rejects.toThrow('engine down');
  });

  it('takes a neighbour the retrieval returned from its candidates, with no read', async () => {
    const next = { ...chunk('a', 4, 'exactly two millimetres. Then more.'), pageNumber: '2' };
    const r = await new PassageReads(index()).read(
      { accountId: 1, docSetNames: ['d'] },
      'quokka drift tolerance',
      hits,
      true,
      [hits[0].chunk, next],
    );
    expect(calls).toEqual([]);
    expect(r).toEqual({
      uncovered: false,
      completions: new Map([['a:3', { head: '', tail: ' exactly two millimetres.' }]]),
      engineRead: false,
    });
  });

  it('reads nothing when no term is missing and no passage is cut', async () => {
    const whole = [hit(chunk('a', 0, 'Mnesia runs inside Docker.'))];
    const r = await new PassageReads(index()).read(
      { accountId: 1, docSetNames: ['d'] },
      'Mnesia Docker',
      whole,
      true,
    );
    expect(calls).toEqual([]);
    expect(r.uncovered).toBe(false);
  });
});
