import { estimateTokens, NO_ANSWER_TEXT, Passage } from '../generation.port';
import { CitedAnswerStream } from './cited-answer-stream';
import {
  answerUserPrompt,
  citationGrammar,
  labelsByDocument,
  perDocumentGrammar,
  NOT_FOUND_REPLY,
  PromptPassage,
  selectPassages,
  selectPassagesPerDocument,
} from './grounded-prompt';

const labels: PromptPassage[] = [
  { label: 1, n: 4, fileName: 'a.pdf', pageNumber: '1', text: '' },
  { label: 2, n: 7, fileName: 'b.pdf', pageNumber: '2', text: '' },
];

/** Feeds `chunks` one by one and returns what was released after each, and in all. */
function run(chunks: string[]) {
  const s = new CitedAnswerStream(labels);
  const released = chunks.map((c) => s.push(c));
  released.push(s.finish());
  return { text: released.join(''), released, cited: s.cited };
}

describe('CitedAnswerStream', () => {
  it('moves each marker after its sentence and maps prompt labels to passage numbers', () => {
    expect(run(['[2] The default is 10pt. [1] It is set with \\fontsize.']).text).toBe(
      'The default is 10pt. [7] It is set with \\fontsize. [4]',
    );
  });

  it('releases text as it streams, holding back only what may start the next marker', () => {
    const r = run(['[', '1] The ', 'margin is 2cm', '. ', '[', '2', '] Use ', 'geometry.']);
    expect(r.text).toBe('The margin is 2cm. [4] Use geometry. [7]');
    // The space after a sentence is held until the next marker shows it was a separator.
    expect(r.released).toEqual(['', 'The', ' margin is 2cm', '.', '', '', ' [4] Use', ' geometry.', ' [7]']);
  });

  it('keeps brackets that are not markers and dots inside words', () => {
    expect(run(['[1] Write \\usepackage[margin=2cm]{geometry} in main.tex.']).text).toBe(
      'Write \\usepackage[margin=2cm]{geometry} in main.tex. [4]',
    );
  });

  it('ends a cut-off last sentence with the marker the model chose for it', () => {
    expect(run(['[1] First. [2] Second is cut o']).text).toBe('First. [4] Second is cut o [7]');
  });

  it('drops sentences citing no given passage and text before the first marker', () => {
    expect(run(['Preamble. [9] Invented source. [2] Real one.']).text).toBe('Real one. [7]');
  });

  it('turns the not-found reply, a truncated one, or no output into the no-answer text', () => {
    for (const chunks of [[NOT_FOUND_REPLY], ['I don', "'t know."], ["I don't"], [], ['  ']]) {
      const r = run(chunks);
      expect(r.text).toBe(NO_ANSWER_TEXT);
      expect(r.cited).toBe(false);
    }
  });

  it('gives the notFoundText instead of the not-found reply when one is given, streamed or at the end', () => {
    const fallback = 'Found another way. [9]';
    const s1 = new CitedAnswerStream([{ label: 1, n: 9 }], fallback);
    expect(s1.push("I don't know.") + s1.finish()).toBe(fallback);
    const s2 = new CitedAnswerStream([{ label: 1, n: 9 }], fallback);
    expect(s2.finish()).toBe(fallback);
    const s3 = new CitedAnswerStream([{ label: 1, n: 9 }], fallback);
    expect(s3.push('[1] The model answered.') + s3.finish()).toBe('The model answered. [9]');
  });

  it('takes a first sentence that is the not-found reply behind a marker for the not-found reply', () => {
    for (const chunks of [
      ['[1] I don', "'t know."],
      ["[2] I don't know. [1] Something else."],
      ['[1]  I don'],
    ]) {
      const r = run(chunks);
      expect(r.text).toBe(NO_ANSWER_TEXT);
      expect(r.cited).toBe(false);
    }
    const fallback = 'Found another way. [9]';
    const s = new CitedAnswerStream([{ label: 1, n: 9 }], fallback);
    expect(s.push('[1] I don') + s.push("'t know.") + s.finish()).toBe(fallback);
    // Held only while it may still be the reply; a later sentence saying it is kept as written.
    const r = run(['[1] I do', 'ubt it. [2] ', "I don't know."]);
    expect(r.released[0]).toBe('');
    expect(r.text).toBe("I doubt it. [4] I don't know. [7]");
  });

  it('says a repeated sentence once, its new passage marked beside the sentence just before', () => {
    // The same sentence for a second passage: one sentence, both markers.
    expect(run(['[1] The stub file is f_stubs.c. [2] The stub file is  F_stubs.c.']).text).toBe(
      'The stub file is f_stubs.c. [4] [7]',
    );
    // The same sentence for the same passage, or an earlier sentence again: said once, no marker.
    expect(run(['[1] It is 2cm. [1] It is 2cm.']).text).toBe('It is 2cm. [4]');
    expect(run(['[1] It is 2cm. [2] Use geometry. [2] It is 2cm.']).text).toBe(
      'It is 2cm. [4] Use geometry. [7]',
    );
    // A cut-off repeat says nothing new either.
    expect(run(['[1] It is 2cm. [2] It is']).text).toBe('It is 2cm. [4]');
  });

  it('holds a sentence back only while it repeats an earlier one, and keeps one that goes on differently', () => {
    const r = run(['[1] The margin is 2cm.', ' [2] The margin', ' is 3cm', ' in the book class.']);
    expect(r.text).toBe('The margin is 2cm. [4] The margin is 3cm in the book class. [7]');
    // ' The margin' repeats the first sentence's start: held until ' is 3cm' shows it does not.
    expect(r.released).toEqual([
      'The margin is 2cm.',
      ' [4]',
      ' The margin is 3cm',
      ' in the book class.',
      ' [7]',
    ]);
  });

  it('does not take a sentence for the not-found reply while it may still be one', () => {
    const r = run(['I', ' don']);
    expect(r.released.slice(0, 2)).toEqual(['', '']);
    expect(r.text).toBe(NO_ANSWER_TEXT);
  });
});

describe("CitedAnswerStream: the page that prints a sentence's figures", () => {
  const report: PromptPassage[] = [
    {
      label: 1,
      n: 4,
      fileName: 'report.pdf',
      pageNumber: '1',
      text: 'The pilot, 52, held a commercial certificate.',
    },
    {
      label: 2,
      n: 7,
      fileName: 'report.pdf',
      pageNumber: '2',
      text: 'Total Flight Time: 11,000 hours Age: 52',
    },
    {
      label: 3,
      n: 9,
      fileName: 'other.pdf',
      pageNumber: '2',
      text: 'Total Flight Time: 11,000 hours, 2,300 in type',
    },
  ];
  const answer = (output: string, passages = report) => {
    const s = new CitedAnswerStream(passages);
    return s.push(output) + s.finish();
  };

  it("cites the page of the model's document that prints the figures the cited page does not", () => {
    expect(answer('[1] The pilot had 11000 hours of flight time.')).toBe(
      'The pilot had 11000 hours of flight time. [7]',
    );
    // The sentence just before still carries its own marker, and a repeat keeps the repaired one.
    expect(answer('[1] The pilot was 52. [1] He had 11,000 hours.')).toBe(
      'The pilot was 52. [4] He had 11,000 hours. [7]',
    );
  });

  it("keeps the model's marker when its page prints the figures, when they are nowhere else in its document, or when there are none", () => {
    expect(answer('[2] The pilot had 11,000 hours.')).toBe('The pilot had 11,000 hours. [7]');
    // 2,300 is printed only by another document: the document is the model's choice.
    expect(answer('[1] He had 2,300 hours in type.')).toBe('He had 2,300 hours in type. [4]');
    expect(answer('[1] The pilot held a certificate.')).toBe('The pilot held a certificate. [4]');
    // A number inside a name is no figure: the form page that names the operator keeps the marker.
    const operator: PromptPassage[] = [
      { label: 1, n: 4, fileName: 'report.pdf', pageNumber: '1', text: 'Piper PA-31T, N3541F' },
      {
        label: 2,
        n: 7,
        fileName: 'report.pdf',
        pageNumber: '2',
        text: 'Operator Does Business As: Darby Aviation',
      },
    ];
    expect(answer('[2] The PA-31T operator did business as Darby Aviation.', operator)).toBe(
      'The PA-31T operator did business as Darby Aviation. [7]',
    );
    // A figure the model worked out (the sum) is printed nowhere: no page prints more of them.
    expect(answer('[1] Together 13,300 hours.')).toBe('Together 13,300 hours. [4]');
    // Passages the stream was given without their text (no page to compare) keep the marker.
    expect(
      answer('[1] He had 11,000 hours.', [
        { label: 1, n: 4 },
        { label: 2, n: 7 },
      ] as PromptPassage[]),
    ).toBe('He had 11,000 hours. [4]');
  });

  it('moves the marker only to a page that prints more of the figures, the first in prompt order', () => {
    const pages: PromptPassage[] = [
      { label: 1, n: 1, fileName: 'f.pdf', pageNumber: '1', text: 'Revenue 2018 was reported.' },
      { label: 2, n: 2, fileName: 'f.pdf', pageNumber: '5', text: 'Revenue 2018 1,577 2017 1,373' },
      { label: 3, n: 3, fileName: 'f.pdf', pageNumber: '9', text: 'Revenue 2018 1,577 2017 1,373 again' },
    ];
    expect(answer('[1] Revenue was 1,577 in 2018.', pages)).toBe('Revenue was 1,577 in 2018. [2]');
    expect(answer('[3] Revenue was 1,577 in 2018.', pages)).toBe('Revenue was 1,577 in 2018. [3]');
  });
});

describe('selectPassages', () => {
  const words = (n: number, w: string) => Array.from({ length: n }, () => w).join(' ');
  const p = (n: number, text: string): Passage => ({ n, fileName: `f${n}.pdf`, pageNumber: String(n), text });

  it('keeps passages whole while they fit, best first, numbered 1..k', () => {
    const out = selectPassages([p(3, words(40, 'alpha')), p(5, words(40, 'beta'))], {
      budgetTokens: 1000,
      countTokens: estimateTokens,
      query: 'alpha',
    });
    expect(out.map((x) => [x.label, x.n])).toEqual([
      [1, 3],
      [2, 5],
    ]);
  });

  it('trims the passage that does not fit to its sentences around the query terms', () => {
    const filler = Array.from({ length: 30 }, (_, i) => `Filler sentence number ${i} says nothing much.`);
    const text = [
      ...filler.slice(0, 15),
      'The outputtemplate default is %j.%c here.',
      ...filler.slice(15),
    ].join(' ');
    const budget = 100;
    const out = selectPassages([p(1, text)], {
      budgetTokens: budget,
      countTokens: estimateTokens,
      query: 'outputtemplate default',
    });
    expect(out).toHaveLength(1);
    expect(out[0].text).toContain('The outputtemplate default is %j.%c here.');
    expect(out[0].text.length).toBeLessThan(text.length / 2);
    expect(estimateTokens(`[1] ${out[0].text}`)).toBeLessThanOrEqual(budget);
  });

  it('stays within the budget over many passages and skips text another passage holds', () => {
    const passages = Array.from({ length: 12 }, (_, i) =>
      p(i + 1, `Sentence ${i} about margins. ${words(200, 'lorem')}.`),
    );
    passages.splice(1, 0, { ...passages[0], n: 99 });
    const out = selectPassages(passages, {
      budgetTokens: 1500,
      countTokens: estimateTokens,
      query: 'margins',
    });
    const total = out.reduce((s, x) => s + estimateTokens(`[${x.label}] ${x.text}`), 0);
    expect(total).toBeLessThanOrEqual(1500);
    expect(out.length).toBeGreaterThan(2);
    expect(out.map((x) => x.n)).not.toContain(99);
  });

  it('shows bracketed numbers of the source as (n) so they never read as passage labels', () => {
    const out = selectPassages([p(1, 'See reference [12] for details.')], {
      budgetTokens: 100,
      countTokens: estimateTokens,
      query: 'details',
    });
    expect(out[0].text).toBe('See reference (12) for details.');
  });
});

describe('prompt and grammar', () => {
  it('summarises the conversation through the rewritten query instead of pasting it', () => {
    const prompt = answerUserPrompt(
      {
        question: 'And its default?',
        query: 'default value of outputtemplate in MetaPost',
        history: [{ role: 'user', content: 'A very long earlier turn about outputtemplate '.repeat(50) }],
      },
      [{ label: 1, n: 1, fileName: 'mp.pdf', pageNumber: '3', text: 'outputtemplate is %j.%c by default.' }],
    );
    expect(prompt).toContain(
      'Passages:\n\n[1] outputtemplate is %j.%c by default.\n\nQuestion: And its default?',
    );
    expect(prompt).not.toContain('mp.pdf');
    expect(prompt).toContain('Question: And its default?');
    expect(prompt).toContain('this question means: default value of outputtemplate in MetaPost');
    expect(prompt).not.toContain('A very long earlier turn');
  });

  it('offers exactly the prompt labels as citation numbers', () => {
    const g = citationGrammar([1, 2, 3]);
    expect(g).toContain('num ::= "1" | "2" | "3"');
    expect(g).toContain(`root ::= "${NOT_FOUND_REPLY}" | seg (" " seg)? (" " seg)?`);
  });
});

describe('list and compare answers: one sentence per document', () => {
  const pp = (label: number, fileName: string) => ({
    label,
    n: label * 10,
    fileName,
    pageNumber: '1',
    text: 't',
  });

  it('groups the prompt labels by document in order of first appearance, at most max documents', () => {
    const ps = [pp(1, 'a.pdf'), pp(2, 'b.pdf'), pp(3, 'a.pdf'), pp(4, 'c.pdf')];
    expect(labelsByDocument(ps, 6)).toEqual([[1, 3], [2], [4]]);
    expect(labelsByDocument(ps, 2)).toEqual([[1, 3], [2]]);
    expect(labelsByDocument([pp(1, 'a.pdf'), pp(2, 'a.pdf')], 6)).toBeUndefined();
  });

  it('shares a tight budget among the documents instead of leaving the last ones out', () => {
    const doc = (n: number, fileName: string, subject: string): Passage => ({
      n,
      fileName,
      pageNumber: '1',
      text: Array.from(
        { length: 12 },
        (_, i) => `Sentence ${i} of ${subject} ${n} names the investigator.`,
      ).join(' '),
    });
    // The first document has three long passages; a budget that holds about four of them.
    const passages = [doc(1, 'a.pdf', 'alpha'), doc(2, 'a.pdf', 'alpha'), doc(3, 'a.pdf', 'alpha')].concat([
      doc(4, 'b.pdf', 'bravo'),
      doc(5, 'c.pdf', 'charlie'),
      doc(6, 'd.pdf', 'delta'),
    ]);
    const o = { budgetTokens: 500, countTokens: estimateTokens, query: 'investigator' };
    const files = (ps: { fileName: string }[]) => [...new Set(ps.map((x) => x.fileName))];
    expect(files(selectPassages(passages, o))).toEqual(['a.pdf', 'b.pdf']);
    const shared = selectPassagesPerDocument(passages, o, 6);
    expect(files(shared)).toEqual(['a.pdf', 'b.pdf', 'c.pdf', 'd.pdf']);
    expect(shared.map((x) => x.label)).toEqual(shared.map((_, i) => i + 1));
    const total = shared.reduce((t, x) => t + estimateTokens(`[${x.label}] ${x.text}`), 0);
    expect(total).toBeLessThanOrEqual(500);
    // At most `maxDocuments`; one document is plain selectPassages.
    expect(files(selectPassagesPerDocument(passages, o, 2))).toEqual(['a.pdf', 'b.pdf']);
    expect(selectPassagesPerDocument(passages.slice(0, 3), o, 6)).toEqual(
      selectPassages(passages.slice(0, 3), o),
    );
  });

  it('requires a sentence citing each document, in order, then allows one more citing any passage', () => {
    const g = perDocumentGrammar([[1, 3], [2]]);
    expect(g).toContain(`root ::= "I don't know." | seg1 " " seg2 (" " seg)?`);
    expect(g).toContain('seg1 ::= "[" ("1" | "3") "] " lead* first char* "."');
    expect(g).toContain('seg2 ::= "[" ("2") "] " lead* first char* "."');
    expect(g).toContain('num ::= "1" | "3" | "2"');
  });
});
