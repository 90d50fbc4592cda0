import { NO_ANSWER_TEXT, Passage } from '../generation.port';
import { LocalGenerator } from './local.generator';
import { rowQuotes } from '@docqa/text';

const cashFlow: Passage = {
  n: 1,
  fileName: '3M_2018_10K.pdf',
  pageNumber: '60',
  context: '3M Company | Form 10-K | 2018',
  text: [
    'Consolidated Statement of Cash Flows',
    'Years ended December 31',
    '(Millions) 2018 2017 2016',
    'Net income including noncontrolling interest $ 5,363 $ 4,869 $ 5,058',
    'Depreciation and amortization 1,488 1,544 1,474',
    'Cash Flows from Investing Activities',
    'Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)',
    'Proceeds from sale of PP&E and other assets 262 49 58',
  ].join('\n'),
};
const notes: Passage = {
  n: 2,
  fileName: '3M_2018_10K.pdf',
  pageNumber: '41',
  context: '3M Company | Form 10-K | 2018',
  text: 'The Company expects to continue investing in research and development and in its plants. Capital spending is funded from operations.',
};

describe('rowQuotes', () => {
  it('quotes each row with the periods of its header', () => {
    const q = rowQuotes(cashFlow.text);
    expect(q.get('Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)')).toBe(
      'Purchases of property, plant and equipment (PP&E): 2018 (1,577), 2017 (1,373), 2016 (1,420)',
    );
    expect(q.get('Net income including noncontrolling interest $ 5,363 $ 4,869 $ 5,058')).toBe(
      'Net income including noncontrolling interest: 2018 $5,363, 2017 $4,869, 2016 $5,058',
    );
  });
});

describe('LocalGenerator: table rows and evidence', () => {
  const g = new LocalGenerator();
  const ask = (question: string, passages: Passage[]) =>
    g.compose({ question, query: question, history: [], passages });

  it('answers with a table row, quoted with its column periods', () => {
    const text = ask('How much did 3M spend on purchases of property, plant and equipment in 2018?', [
      notes,
      cashFlow,
    ]);
    expect(text).toContain('Purchases of property, plant and equipment (PP&E): 2018 (1,577), 2017 (1,373)');
    expect(text).toMatch(/\[1\]$/);
  });

  it('quotes rows with their periods in an answer from several documents', () => {
    const boeing: Passage = {
      ...cashFlow,
      n: 2,
      fileName: 'BOEING_2018_10K.pdf',
      context: 'The Boeing Company | Form 10-K | 2018',
      text: [
        '(Dollars in millions) 2018 2017 2016',
        'Property, plant and equipment additions (1,722) (1,739) (2,613)',
      ].join('\n'),
    };
    const text = ask(
      "How did 3M's purchases of property, plant and equipment compare to Boeing's property, plant and equipment additions in 2018?",
      [cashFlow, boeing],
    );
    expect(text).toContain('Purchases of property, plant and equipment (PP&E): 2018 (1,577), 2017 (1,373)');
    expect(text).toContain('Property, plant and equipment additions: 2018 (1,722), 2017 (1,739)');
    expect(text).toMatch(/\[1\].*\[2\]|\[2\].*\[1\]/);
  });

  it('keeps the plain not-found answer when the passages are not about the question', () => {
    expect(ask('Which vaccine schedule do toddlers in Norway follow?', [cashFlow, notes])).toBe(
      NO_ANSWER_TEXT,
    );
  });

  describe('a question that names a financial statement', () => {
    const labelled = {
      ...cashFlow,
      n: 2,
      section: 'Cash flow statement > Consolidated Statement of Cash Flows',
    };
    const prose: Passage = {
      ...notes,
      n: 1,
      text: 'Depreciation and amortization rose in 2018, as new plants opened.',
    };

    it("cites that statement's page as evidence instead of a bare refusal", () => {
      const question =
        'What is the FY2018 fixed asset turnover ratio? Base your judgment on the statement of cash flows.';
      expect(ask(question, [notes, cashFlow])).toBe(NO_ANSWER_TEXT);
      const text = ask(question, [notes, labelled]);
      expect(text).toMatch(/^No passage states the answer directly.*\[2\]$/);
      expect(text).not.toContain('[1]');
    });

    it("prefers the statement's rows to prose on another page", () => {
      const question = 'What was depreciation and amortization in 2018? Use the cash flow statement.';
      expect(ask(question, [prose, { ...labelled, section: undefined }])).toMatch(/plants opened\. \[1\]/);
      const text = ask(question, [prose, labelled]);
      expect(text).toContain('Depreciation and amortization: 2018 1,488');
      expect(text).toMatch(/^Depreciation and amortization: [^[]*\[2\]/);
    });
  });
});
