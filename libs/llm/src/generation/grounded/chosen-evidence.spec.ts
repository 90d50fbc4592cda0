import { GenerateInput, NO_ANSWER_TEXT, Passage } from '../generation.port';
import { LocalGenerator } from '../local/local.generator';
import { chosenEvidence, extractiveHint } from './chosen-evidence';
import type { PromptPassage } from './grounded-prompt';

const p = (n: number, fileName: string, pageNumber: string, text: string): Passage => ({
  n,
  fileName,
  pageNumber,
  text,
});

const input = (question: string, passages: Passage[]): GenerateInput => ({
  question,
  query: question,
  history: [],
  passages,
});

describe('chosenEvidence', () => {
  const passages = [
    p(1, 'a.pdf', '3', 'Page three of a covers the weather on the day.'),
    p(2, 'b.pdf', '1', 'Report b was written in Denver.'),
    p(3, 'a.pdf', '2', 'Chunk two of page two.'),
    p(4, 'a.pdf', '3', 'A second chunk of page three of a.'),
    p(5, 'c.pdf', '7', 'Nothing relevant.'),
  ];

  it('puts the cited passages first, in citation order, each followed by the other chunks of its page', () => {
    const out = chosenEvidence(input('q', passages), () => 'First. [3] Second. [1] Again. [3]');
    expect(out?.passages.map((x) => x.n)).toEqual([3, 1, 4]);
    expect(out?.answer).toBe('First. [3] Second. [1] Again. [3]');
  });

  it('is null when the extractive answer declines, cites nothing, or there are no passages', () => {
    expect(chosenEvidence(input('q', passages), () => NO_ANSWER_TEXT)).toBeNull();
    expect(chosenEvidence(input('q', passages), () => 'An answer with no marker.')).toBeNull();
    expect(chosenEvidence(input('q', passages), () => 'Unknown passage. [42]')).toBeNull();
    expect(chosenEvidence(input('q', []), () => 'x [1]')).toBeNull();
  });

  it('follows the real extractive answerer: the document a question names, and no evidence for an unrelated one', () => {
    const local = new LocalGenerator();
    const docs = [
      p(1, 'plant.pdf', '2', 'The North Plant opened in 1965 and the South Plant opened in 1998.'),
      p(2, 'staff.pdf', '5', 'The water authority employs 287 people across both plants.'),
      p(3, 'staff.pdf', '5', 'Of these, 40 work at the laboratory.'),
    ];
    const compose = (i: GenerateInput) => local.compose(i);
    expect(chosenEvidence(input('When did the South Plant open?', docs), compose)?.passages[0].n).toBe(1);
    const staff = chosenEvidence(input('How many people does the water authority employ?', docs), compose);
    expect(staff?.passages.map((x) => x.fileName)).toEqual(['staff.pdf', 'staff.pdf']);
    expect(chosenEvidence(input('What is the capital city of Peru?', docs), compose)).toBeNull();
  });
});

describe('extractiveHint', () => {
  const shown = (label: number, n: number): PromptPassage => ({
    label,
    n,
    fileName: 'a.pdf',
    pageNumber: String(n),
    text: `passage ${n}`,
  });

  it('writes each sentence of the extractive answer behind the prompt label of its passage', () => {
    // passages 7 and 3 of the retrieval are [1] and [2] in the prompt
    const passages = [shown(1, 7), shown(2, 3)];
    expect(extractiveHint('The default is 12pt. [3] Use\n  the draft option. [7]', passages)).toBe(
      '[2] The default is 12pt. [1] Use the draft option.',
    );
  });

  it('ends every sentence with a full stop, so a copied sentence never runs into the next marker', () => {
    const passages = [shown(1, 4), shown(2, 5)];
    expect(
      extractiveHint(
        'The outer product is formed by the operator %o%: [4] > ab <- a %o% b [4] Done! [5]',
        passages,
      ),
    ).toBe('[1] The outer product is formed by the operator %o%. [1] > ab <- a %o% b. [2] Done!');
    expect(extractiveHint('It says “stop.” [4]', passages)).toBe('[1] It says “stop.”');
  });

  it('drops sentences of passages the prompt left out, and is empty when none is shown', () => {
    expect(extractiveHint('Kept. [3] Cut by the budget. [9]', [shown(1, 3)])).toBe('[1] Kept.');
    expect(extractiveHint('Cut by the budget. [9]', [shown(1, 3)])).toBe('');
    expect(extractiveHint('No marker at all.', [shown(1, 3)])).toBe('');
  });

  it('keeps escaped numbers of the text, which are no markers', () => {
    expect(extractiveHint('See note (2) of the table. [4]', [shown(1, 4)])).toBe(
      '[1] See note (2) of the table.',
    );
  });
});
