import { NO_ANSWER_TEXT, Passage } from '../generation.port';
import { LocalGenerator, pieces } from './local.generator';
import { LocalReranker } from './local.reranker';
import { LocalRewriter, subjectTerms } from './local.rewriter';
import { localTitle, LocalTitler } from './local.titler';
import { analyseQuery, identifierTokens } from '@docqa/text';
import { segmentText } from './segments';

const geometryPage =
  'The geometry package\nAbstract\nThis package provides a flexible and easy interface to page dimensions. You can change the page\n' +
  'layout with intuitive parameters. For instance, if you want to set a margin to 2cm from each edge of\n' +
  'the paper, you can type just \\usepackage[margin=2cm]{geometry}. The page layout can be changed\n' +
  'in the middle of the document with \\newgeometry command.\n';
const mpPage =
  'To ensure compatibility with older files, the default value of outputtemplate is %j.%c. If you\n' +
  'assign an empty string, it will revert to that default. See Section C.2 [14] for more.\n';

const passage = (n: number, text: string, fileName = 'geometry.pdf', pageNumber = '1'): Passage => ({
  n,
  text,
  fileName,
  pageNumber,
});

async function collect(g: LocalGenerator, input: Parameters<LocalGenerator['generate']>[0]) {
  let text = '';
  const usage = [];
  for await (const e of g.generate(input)) {
    if (e.type === 'text') text += e.text;
    else usage.push(e.call);
  }
  return { text, usage };
}

describe('segmentText', () => {
  it('joins printed lines into sentences and keeps line-break hyphens as hyphens', () => {
    const s = segmentText(
      'This is a long sen-\ntence that goes on.\nNext one starts here. And another.\n• a bullet\n• two',
    );
    expect(s).toEqual([
      'This is a long sen-tence that goes on.',
      'Next one starts here.',
      'And another.',
      '• a bullet',
      '• two',
    ]);
  });

  it('does not end a sentence at a title or abbreviation before a name, nor at an initial', () => {
    expect(
      segmentText(
        'It landed at Vance W. Amory Airport, Charlestown, St. Kitts and Nevis. Dr. Smith and Mr. Jones saw it. ' +
          'Units vary, e.g. The one below. The report by D. E. Knuth follows.',
      ),
    ).toEqual([
      'It landed at Vance W. Amory Airport, Charlestown, St. Kitts and Nevis.',
      'Dr. Smith and Mr. Jones saw it.',
      'Units vary, e.g. The one below.',
      'The report by D. E. Knuth follows.',
    ]);
    // A word that merely ends in those letters still ends its sentence.
    expect(segmentText('He went to the first. Then home.')).toEqual(['He went to the first.', 'Then home.']);
  });

  it('cuts run-together text into bounded segments', () => {
    const s = segmentText(Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '));
    expect(s.length).toBeGreaterThan(1);
    for (const x of s) expect(x.length).toBeLessThanOrEqual(360);
  });
});

describe('LocalGenerator', () => {
  const g = new LocalGenerator();

  it('answers with the best sentence of the passages, carrying its passage marker', async () => {
    const { text, usage } = await collect(g, {
      question: 'latex set all margins 2cm',
      query: 'latex set all margins 2cm',
      history: [],
      passages: [passage(1, mpPage, 'mpman.pdf', '68'), passage(2, geometryPage)],
    });
    expect(text).toContain('\\usepackage[margin=2cm]{geometry}');
    expect(text).toMatch(/\[2\]/);
    expect(text).not.toMatch(/\[1\]/);
    expect(usage).toEqual([
      { model: 'local', inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    ]);
  });

  it("reads the ask's analysis when given one, and analyses the input itself otherwise", () => {
    const input = {
      question: 'latex set all margins 2cm',
      query: 'latex set all margins 2cm',
      history: [],
      passages: [passage(1, mpPage, 'mpman.pdf', '68'), passage(2, geometryPage)],
    };
    const own = g.compose(input);
    expect(own).toMatch(/\[2\]/);
    expect(g.compose({ ...input, analysis: analyseQuery(input.question, input.query) })).toBe(own);
    // The answer follows the analysis handed in: one of a question the passages do not cover
    // gives the not-found answer for the same question text.
    const foreign = analyseQuery('Mnesia Docker container Kubernetes');
    expect(g.compose({ ...input, analysis: foreign })).toBe(NO_ANSWER_TEXT);
  });

  it('carries the sentence after the best one when the two are short together', async () => {
    const cachePage =
      'The cache of the build tool is cleared when the program exits. Stale entries would otherwise ' +
      'be served after an upgrade. ' +
      'Other settings control the colours of the output, the width of progress bars and the names ' +
      'of log files, which most users leave as they are.\n';
    const input = {
      question: 'Why is the cache of the build tool cleared when the program exits?',
      query: 'why cache build tool cleared program exits',
      history: [],
      passages: [passage(1, cachePage, 'build-tool.pdf', '3')],
    };
    const { text } = await collect(g, input);
    expect(text).toBe(
      'The cache of the build tool is cleared when the program exits. [1] Stale entries would otherwise be served after an upgrade. [1]',
    );
    // 0 leaves the following sentence out unless the best one introduces it (a colon, a command)
    expect(new LocalGenerator({ followingSentenceChars: 0 }).compose(input)).toBe(
      'The cache of the build tool is cleared when the program exits. [1]',
    );
    // a long pair stays one sentence: the limit counts both
    expect(new LocalGenerator({ followingSentenceChars: 100 }).compose(input)).toBe(
      'The cache of the build tool is cleared when the program exits. [1]',
    );
  });

  it('quotes a sentence whole where one passage cuts it off and the overlapping next one holds it', async () => {
    const cutChunk =
      'The package reads its options once.\nIf the owner and user passwords are set to the same string when encrypting\nthe PDF file, the';
    const nextChunk =
      'If the owner and user passwords are set to the same string when encrypting\nthe PDF file, the document always ' +
      'opens with the user access privileges.\nOther settings follow.';
    const { text } = await collect(g, {
      question: 'reportlab owner and user passwords same string encrypting',
      query: 'reportlab owner and user passwords same string encrypting',
      history: [],
      passages: [passage(1, cutChunk, 'guide.pdf', '58'), passage(2, nextChunk, 'guide.pdf', '58')],
    });
    expect(text).toContain('the document always opens with the user access privileges. [2]');
    expect(text).not.toMatch(/the PDF file, the \[1\]/);
  });

  it('quotes a sentence whole where one passage starts in its middle and the overlapping one before holds it', async () => {
    const earlierChunk =
      'The package reads its options once.\nIf the owner and user passwords are set to the same string when encrypting\n' +
      'the PDF file, the document always opens with the user access privileges.';
    const laterChunk =
      'string when encrypting\nthe PDF file, the document always opens with the user access privileges.\nOther settings follow.';
    const { text } = await collect(g, {
      question: 'encrypting the PDF file document opens with user access privileges',
      query: 'encrypting the PDF file document opens with user access privileges',
      history: [],
      passages: [passage(1, laterChunk, 'guide.pdf', '58'), passage(2, earlierChunk, 'guide.pdf', '58')],
    });
    expect(text).toContain('If the owner and user passwords are set to the same string');
    expect(text).not.toMatch(/^string when encrypting/);
  });

  it('keeps the sentence before the answer right after a cut-off copy is dropped from its passage', async () => {
    const laterChunk =
      'string when encrypting\nthe PDF file, the document always opens with the user access privileges.\n' +
      'The owner password is kept apart from the user password. This way, printing and copying stay locked for readers.\n' +
      'Other settings follow.';
    const earlierChunk =
      'The package reads its options once.\nIf the owner and user passwords are set to the same string when encrypting\n' +
      'the PDF file, the document always opens with the user access privileges.';
    const { text } = await collect(g, {
      question: 'printing copying locked readers',
      query: 'printing copying locked readers',
      history: [],
      passages: [passage(1, laterChunk, 'guide.pdf', '58'), passage(2, earlierChunk, 'guide.pdf', '58')],
    });
    // "This way, ..." refers back: the sentence before it is its passage's, said once.
    expect(text).toContain(
      'The owner password is kept apart from the user password. [1] This way, printing and copying stay locked for readers. [1]',
    );
  });

  it('says a sentence that two pages repeat once, citing both pages', async () => {
    const sentence = 'The value of callout.start is the decimal unicode value used for callout number one.';
    const { text } = await collect(g, {
      question: 'What is the value of callout.start?',
      query: 'value of callout.start',
      history: [],
      passages: [
        passage(1, `Callouts are numbered.\n${sentence}\nOther parameters follow.`, 'reference.pdf', '6'),
        passage(2, `The list of parameters.\n${sentence}\nMore parameters follow.`, 'reference.pdf', '32'),
      ],
    });
    expect(text.split(sentence).length - 1).toBe(1);
    expect(text).toContain(`${sentence} [1] [2]`);
  });

  it('never lets a bracketed number of the source read as a marker', async () => {
    const { text } = await collect(g, {
      question: 'What is the default value of outputtemplate?',
      query: 'default value outputtemplate',
      history: [],
      passages: [passage(1, mpPage, 'mpman.pdf', '68')],
    });
    expect(text).toContain('%j.%c');
    expect(text.match(/\[\d+\]/g)?.every((m) => m === '[1]')).toBe(true);
  });

  it('says the documents do not cover a question whose key terms are missing', async () => {
    const { text } = await collect(g, {
      question: 'How do I run Mnesia inside a Docker container with Kubernetes?',
      query: 'Mnesia Docker container Kubernetes',
      history: [],
      passages: [passage(1, geometryPage)],
    });
    expect(text).toBe(NO_ANSWER_TEXT);
    const none = await collect(g, { question: 'x', query: 'x', history: [], passages: [] });
    expect(none.text).toBe(NO_ANSWER_TEXT);
  });

  it('is deterministic and streams in several pieces', async () => {
    const input = {
      question: 'How do I set the margin to 2cm from each edge of the paper?',
      query: 'set margin 2cm each edge paper',
      history: [],
      passages: [passage(1, geometryPage)],
    };
    const a = await collect(g, input);
    const b = await collect(g, input);
    expect(a.text).toBe(b.text);
    expect(pieces(a.text).length).toBeGreaterThan(1);
    expect(pieces(a.text).join('')).toBe(a.text);
  });

  it('answers from the sentence that names the compound identifier asked about, not one sharing its words', () => {
    // Two parameters of one reference whose names share every word: only the whole name tells them apart.
    const body =
      'body.margin.top — To specify the size of the top margin of a page.\n' +
      '<xsl:param name="body.margin.top">0.5in</xsl:param>\nThe body top margin is the distance from the top of the region-before.';
    const page =
      'page.margin.top — The top margin of the page.\n<xsl:param name="page.margin.top">0.5in</xsl:param>';
    const question = 'docbook page.margin.top default';
    const text = g.compose({
      question,
      query: question,
      history: [],
      passages: [passage(1, body, 'reference.pdf', '51'), passage(2, page, 'reference.pdf', '52')],
    });
    expect(text).toMatch(/^page\.margin\.top — The top margin of the page\. \[2\]/);
    expect(
      identifierTokens('Use mnesia:create_table/2, not e.g. 0.5 or well-known; see page.margin.top.'),
    ).toEqual(['=mnesia:create_table/2', '=page.margin.top']);
  });

  it("matches a question's word to the other form of it a document uses (depart ~ departure)", () => {
    // The question asks with the verb, the page that answers uses the noun; another page shares
    // only the question's subject.
    const delay = 'The ferry was delayed by fog on the crossing, and the passengers were told at the pier.';
    const voyage =
      'The ferry is run by the harbour board and was built in 1998. Its departure was from Ardmore at ' +
      '0630, after the morning inspection.';
    const question = 'Where did the ferry depart from?';
    const text = g.compose({
      question,
      query: question,
      history: [],
      passages: [passage(1, delay, 'voyage.pdf', '1'), passage(2, voyage, 'voyage.pdf', '3')],
    });
    expect(text).toMatch(/^Its departure was from Ardmore at 0630, after the morning inspection\. \[2\]/);
  });

  it('stops when the signal is aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(
      collect(g, {
        question: 'margin 2cm',
        query: 'margin 2cm',
        history: [],
        passages: [passage(1, geometryPage)],
        signal: ac.signal,
      }),
    ).rejects.toBeDefined();
  });
});

describe('LocalRewriter', () => {
  const history = [
    {
      role: 'user' as const,
      content: 'How can I control the file names MetaPost uses for the figures it writes?',
    },
    {
      role: 'assistant' as const,
      content:
        'Assign a template string to the internal string variable outputtemplate, for example outputtemplate := "%j-%c.mps";',
    },
  ];

  it('folds the subject of the history into a follow-up question', async () => {
    const r = await new LocalRewriter().rewrite({ question: 'What is its default value?', history });
    expect(r.query.startsWith('What is its default value?')).toBe(true);
    expect(r.query).toContain('outputtemplate');
    expect(r.query).toMatch(/MetaPost/);
    expect(r.call).toMatchObject({ model: 'local-rewriter' });
  });

  it('leaves a question without history as it is (whitespace collapsed)', async () => {
    const r = await new LocalRewriter().rewrite({
      question: '  Why   would I use heightrounded? ',
      history: [],
    });
    expect(r.query).toBe('Why would I use heightrounded?');
  });

  it('skips terms the question already has and caps the count', () => {
    const terms = subjectTerms('outputtemplate default', history, 3);
    expect(terms).toHaveLength(3);
    expect(terms).not.toContain('outputtemplate');
  });
});

describe('LocalTitler', () => {
  it('titles a conversation from its first question', async () => {
    const r = await new LocalTitler().title({
      messages: [
        { role: 'user', content: 'How do I set all margins to 2cm with geometry?' },
        { role: 'assistant', content: 'Use \\usepackage[margin=2cm]{geometry}. [1]' },
      ],
    });
    expect(r.title).toBe('Set all margins to 2cm with geometry');
  });

  it('keeps salient words of a long question, at most 60 characters', () => {
    const t = localTitle([
      {
        role: 'user',
        content:
          'I have been trying for a while now to understand why the MetaPost outputtemplate variable does not produce SVG files when I run mpost on my machine',
      },
    ]);
    expect(t.length).toBeLessThanOrEqual(60);
    expect(t).toContain('MetaPost');
    expect(localTitle([])).toBe('New conversation');
  });
});

describe('LocalReranker', () => {
  it('ranks passages it has analysed before as it ranked them the first time', async () => {
    // the second call reads the passages' tokens from the cache the first one filled (memoByText)
    const input = {
      query: 'How long does the quarterly vault keep encrypted backups?',
      documents: [
        'The quarterly vault report lists encrypted volumes by region.',
        'Encrypted backups stay in the quarterly vault for 90 days, then they are deleted.',
        'Backups of the vault are reviewed quarterly by the storage team.',
      ],
      topN: 3,
    };
    const first = await new LocalReranker().rerank(input);
    expect(first.results[0].index).toBe(1);
    expect(await new LocalReranker().rerank(input)).toEqual(first);
  });

  it('matches a date of the query to the same day written as documents write it', async () => {
    const r = await new LocalReranker().rerank({
      query: 'Which accidents happened on December 8, 2007? Give the registration numbers.',
      documents: [
        'Location: Chevroux, France Accident Number: DEN08WA042 Date & Time: 12/17/2007, 1200 Registration: F-GDEL',
        'Location: White Plains, AL Accident Number: NYC08CA058 Date & Time: 12/08/2007, 1230 CST Registration: N43682',
      ],
      topN: 2,
    });
    expect(r.results.map((x) => x.index)).toEqual([1, 0]);
  });

  it("looks for the kind of answer the ask's analysis of the query asks for", async () => {
    const documents = [
      'Backups retention is handled by the storage team.',
      'Retention of backups is 30 days in the vault.',
    ];
    const order = async (analysis?: ReturnType<typeof analyseQuery>) =>
      (
        await new LocalReranker({ searchOrderWeight: 0 }).rerank({
          query: 'backups retention',
          analysis,
          documents,
          topN: 2,
        })
      ).results.map((x) => x.index);
    expect(await order()).toEqual([0, 1]); // the query asks for no kind of answer: words decide
    // An analysis whose query asks "how many": the chunk holding a number goes first.
    expect(
      await order(analyseQuery('How many days are backups kept?', 'how many backups retention')),
    ).toEqual([1, 0]);
  });

  it('puts the chunk where the query terms come together first, and index pages last', async () => {
    const docs = [
      'Index: margin, 12 page, 30 geometry, 41 paper, 7 edge, 8 layout, 9 options, 10 2cm, 11',
      'The paper has a margin. Much later, after a long discussion of fonts, colours, tables and many other topics that fill the page, the edge is mentioned once and 2cm appears in a table.',
      'To set a margin of 2cm from each edge of the paper, use \\usepackage[margin=2cm]{geometry}.',
    ];
    // the lexical order alone (the search order would fuse in with the default weight)
    const r = await new LocalReranker({ searchOrderWeight: 0 }).rerank({
      query: 'set margin 2cm each edge paper',
      documents: docs,
      topN: 3,
    });
    expect(r.results[0]).toEqual({ index: 2, score: 1 });
    expect(r.results.map((x) => x.index)).toEqual([2, 1, 0]);
    expect(r.call).toMatchObject({ model: 'local-reranker', outputTokens: 0 });
  });

  it('fuses the lexical order with the search order, ties going to the lexical one', async () => {
    // search order: index-like page, a page far from the terms, the close page, then a miss
    const docs = [
      'Index: margin, 12 page, 30 geometry, 41 paper, 7 edge, 8 layout, 9 options, 10 2cm, 11',
      'The paper has a margin. Much later, after a long discussion of fonts, colours, tables and many other topics that fill the page, the edge is mentioned once and 2cm appears in a table.',
      'To set a margin of 2cm from each edge of the paper, use \\usepackage[margin=2cm]{geometry}.',
      'Fonts and colours of tables.',
    ];
    const query = { query: 'set margin 2cm each edge paper', documents: docs, topN: 4 };
    const lexical = await new LocalReranker({ searchOrderWeight: 0 }).rerank(query);
    expect(lexical.results.map((x) => x.index)).toEqual([2, 1, 0, 3]);
    // equal weights: 2 (lexical 1st, search 3rd) and 0 (lexical 3rd, search 1st) tie, lexical first;
    // 1 is second in both, and 2 + 2 ranks fuse lower than 1 + 3 (1/61 + 1/63 > 2/62)
    const fused = await new LocalReranker().rerank(query);
    expect(fused.results.map((x) => x.index)).toEqual([2, 0, 1, 3]);
    expect(fused.results[0].score).toBe(1);
    // the search order weighing more puts search's first first
    const searchFirst = await new LocalReranker({ searchOrderWeight: 3 }).rerank(query);
    expect(searchFirst.results.map((x) => x.index)).toEqual([0, 1, 2, 3]);
    expect(() => new LocalReranker({ searchOrderWeight: -1 })).toThrow(RangeError);
  });
});
