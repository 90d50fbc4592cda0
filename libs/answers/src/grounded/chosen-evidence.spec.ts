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
  // the retrieved passages the extractive answers below cite from
  const retrieved = [3, 4, 5, 7, 9].map((n) => p(n, 'a.pdf', String(n), `passage ${n}`));
  const hint = (answer: string, prompt: PromptPassage[]) =>
    extractiveHint(chosenEvidence(input('q', retrieved), () => answer)?.cited ?? [], prompt);

  it('names the prompt labels of the passages the extractive answer cites, in its order', () => {
    // passages 7, 3 and 5 of the retrieval are [1], [2] and [3] in the prompt
    const passages = [shown(1, 7), shown(2, 3), shown(3, 5)];
    expect(hint('The default is 12pt. [3]', passages)).toBe('passage [2]');
    expect(hint('The default is 12pt. [3] Set it with\n  the draft option. [7] Again. [3]', passages)).toBe(
      'passages [2] and [1]',
    );
    expect(hint('One. [5] Two. [3] Three. [7]', passages)).toBe('passages [3], [2] and [1]');
  });

  it('quotes none of the answer: the model is told where to look, not what to write', () => {
    expect(hint('The default value of outputtemplate is %j.%c. [3]', [shown(1, 3)])).not.toMatch(
      /outputtemplate/,
    );
  });

  it('skips passages the prompt left out, and is empty when none is shown', () => {
    expect(hint('Kept. [3] Cut by the budget. [9]', [shown(1, 3)])).toBe('passage [1]');
    expect(hint('Cut by the budget. [9]', [shown(1, 3)])).toBe('');
    expect(hint('No marker at all.', [shown(1, 3)])).toBe('');
  });
});
