import { NO_ANSWER_TEXT, Passage } from '../generation.port';
import { analyseQuery } from '@docqa/text';
import { companiesNamed } from './companies';
import { LocalGenerator } from './local.generator';
import { LocalReranker } from './local.reranker';

/** Filing passages as the ask gives them: title, then section, then the document's terms. */
const filing = (
  n: number,
  year: number,
  pageNumber: string,
  section: string,
  text: string,
  company = 'COSTCO WHOLESALE CORPORATION | COST',
): Passage => {
  const short = company.split(' ')[0];
  const title = `${company} | 10-K annual report | FY${year} fiscal ${year} | ${short} ${year} 10K`;
  return {
    n,
    fileName: `${short}_${year}_10K.pdf`,
    pageNumber,
    title,
    section,
    context: `${title} | ${section} | Costco Total Company Item Section`,
    text,
  };
};

const balanceSheet = (n: number, year: number, page: string, assets: string, company?: string) =>
  filing(
    n,
    year,
    page,
    'Balance sheet > CONSOLIDATED BALANCE SHEETS > CURRENT ASSETS',
    [
      'CONSOLIDATED BALANCE SHEETS',
      '(amounts in millions)',
      'August 29,',
      `${year} August 30,`,
      `${year - 1}`,
      'CURRENT ASSETS',
      'Cash and cash equivalents $ 11,258 $ 12,277',
      'Total current assets 29,505 28,120',
      `TOTAL ASSETS $ ${assets} $ 55,556`,
      'Total current liabilities 29,441 24,844',
    ].join('\n'),
    company,
  );

const fairValueNote = filing(
  1,
  2021,
  '51',
  'Notes > Note 4—Fair Value Measurement',
  'Note 4—Fair Value Measurement. The table below presents the total assets and liabilities measured at fair value, as included in the consolidated balance sheets at the end of the year.',
);

describe('LocalGenerator: figures of a filing', () => {
  const g = new LocalGenerator();
  const ask = (question: string, passages: Passage[]) =>
    g.compose({ question, query: question, history: [], passages });

  it("answers from the row whose label repeats the section's and the document's words", () => {
    // `Total` runs through the filing's terms and `CURRENT ASSETS` is the row's section: the row
    // still says "total assets".
    const text = ask('How much total assets did Costco have at the end of FY2021? Answer in USD millions.', [
      fairValueNote,
      balanceSheet(2, 2021, '38', '59,268'),
    ]);
    expect(text).toContain('TOTAL ASSETS: 2021 $59,268, 2020 $55,556 [2]');
    expect(text).not.toContain('[1]');
  });

  it('answers a question that names the statement from its rows, not from a note', () => {
    const question =
      'According to the details outlined within the balance sheet, what were Costco total assets in FY2021?';
    const note = {
      ...fairValueNote,
      text: 'Costco total assets held at fair value in FY2021 were measured at the end of each quarter.',
    };
    const text = ask(question, [note, balanceSheet(2, 2021, '38', '59,268')]);
    expect(text).toContain('TOTAL ASSETS: 2021 $59,268, 2020 $55,556 [2]');
    expect(text).not.toContain('[1]');
  });

  it('answers from the filing of the fiscal year the question names', () => {
    const question = 'What were Costco total assets at the end of FY2021?';
    // the earlier filing ranks first and its row says more of the question's words
    const older = filing(
      1,
      2020,
      '40',
      'Balance sheet > CONSOLIDATED BALANCE SHEETS',
      [
        '(amounts in millions) 2020 2019',
        'Costco total assets at the end of the year $ 55,556 $ 45,400',
      ].join('\n'),
    );
    const asked = balanceSheet(2, 2021, '38', '59,268');
    expect(ask(question, [older, asked])).toContain('[2]');
    expect(ask(question, [older, asked])).not.toContain('[1]');
  });

  it('compares from the filing of the fiscal year the question names', () => {
    const cashFlows = (n: number, year: number, operating: string, financing: string) =>
      filing(
        n,
        year,
        '42',
        'Cash flow statement > Consolidated Statements of Cash Flows',
        [
          `(amounts in millions) ${year} ${year - 1}`,
          `Total cash provided by operating activities ${operating} 7,015`,
          'Total cash used in investing activities (962) (1,372)',
          `Total cash used in financing activities ${financing} (876)`,
        ].join('\n'),
      );
    const text = ask(
      'Among operating, investing and financing activities, which brought in the most cash flow for Costco in FY2021?',
      [cashFlows(1, 2020, '8,861', '(1,147)'), cashFlows(2, 2021, '8,958', '(6,488)')],
    );
    expect(text).toContain('[2]');
    expect(text).not.toContain('[1]');
  });

  it("cites only evidence of the named year's filing when no line answers", () => {
    const question = 'What was the FY2021 fixed asset turnover ratio of Costco? Use the balance sheet.';
    const older = balanceSheet(1, 2020, '40', '55,556');
    const text = ask(question, [older, balanceSheet(2, 2021, '38', '59,268')]);
    expect(text).toMatch(/^No passage states the answer directly.*\[2\]$/);
    expect(text).not.toContain('[1]');
  });

  it('answers from the filing of the company the question names, by name or ticker', () => {
    // the other company's balance sheet ranks first and its row says more of the question's words
    const other = filing(
      1,
      2021,
      '40',
      'Balance sheet > CONSOLIDATED BALANCE SHEETS',
      [
        '(amounts in millions) 2021 2020',
        'Total assets at the end of fiscal year 2021 $ 81,000 $ 75,000',
      ].join('\n'),
      'ZENITH MOTORS CORPORATION | ZMC',
    );
    const asked = balanceSheet(2, 2021, '38', '59,268');
    for (const question of [
      'What were Costco total assets at the end of FY2021?',
      "What were COST's total assets in FY2021?",
    ]) {
      const text = ask(question, [other, asked]);
      expect(text).toContain('TOTAL ASSETS: 2021 $59,268');
      expect(text).not.toContain('[1]');
    }
    // a question that names neither company answers from the best row
    expect(ask('What were total assets at the end of fiscal year 2021?', [other, asked])).toContain('[1]');
  });

  it("cites only the named company's filings as evidence when no line answers", () => {
    const other = balanceSheet(1, 2021, '40', '81,000', 'ZENITH MOTORS CORPORATION | ZMC');
    const text = ask('What was the FY2021 fixed asset turnover ratio of Costco? Use the balance sheet.', [
      other,
      balanceSheet(2, 2021, '38', '59,268'),
    ]);
    expect(text).toMatch(/^No passage states the answer directly.*\[2\]$/);
    expect(text).not.toContain('[1]');
  });

  it("shows the named company's filing as evidence however few of the question's words it prints", () => {
    const pages = [
      filing(
        1,
        2022,
        '25',
        'Results of operations',
        'Sales in Healthcare rose 3 percent while Consumer sales fell 5 percent in 2022.',
      ),
      filing(2, 2022, '90', 'Exhibits', 'Exhibit 21 lists the subsidiaries of the registrant.'),
    ];
    const question =
      'If we exclude the impact of M&A, which segment has dragged down Costco overall growth in 2022?';
    const text = ask(question, pages);
    expect(text).toMatch(/^No passage states the answer directly.*\[1\]/);
    // the same words naming no company whose filing was found are not about these pages
    const unnamed = question.replace('Costco', 'the company');
    expect(ask(unnamed, pages)).toBe(NO_ANSWER_TEXT);
    expect(ask(question.replace('Costco', 'Zenith'), pages)).toBe(NO_ANSWER_TEXT);
  });

  it('reads a company from the first word of its name, capitalised, or from its ticker', () => {
    const passages = [
      filing(1, 2023, '1', 'Cover', 'x', 'BEST BUY CO., INC. | BBY'),
      filing(2, 2023, '1', 'Cover', 'x', 'COSTCO WHOLESALE CORPORATION | COST'),
      { n: 3, fileName: 'manual.pdf', pageNumber: '1', title: 'An Introduction to R', text: 'x' },
    ];
    const named = (question: string) => {
      const c = companiesNamed(passages, question);
      return passages.map((p) => (c.named(p) ? 'named' : c.other(p) ? 'other' : '-'));
    };
    expect(named("What was Best Buy's FY2023 revenue?")).toEqual(['named', 'other', '-']);
    expect(named('How did BBY and Costco grow?')).toEqual(['named', 'named', '-']);
    // a common word written in lower case, or a ticker written as a word, names no company
    expect(named('Which segment performed best? Cost of sales rose.')).toEqual(['other', 'other', '-']);
    expect(companiesNamed(passages, 'Which segment performed best?').found).toBe(false);
  });

  it('reads a line item under the name the statement prints it with', () => {
    const cashFlow = filing(
      2,
      2018,
      '60',
      'Cash flow statement > Cash Flows from Investing Activities',
      [
        '(Millions) 2018 2017 2016',
        'Net income including noncontrolling interest $ 5,363 $ 4,869 $ 5,058',
        'Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)',
        'Proceeds from sale of PP&E and other assets 262 49 58',
      ].join('\n'),
    );
    const prose = filing(
      1,
      2018,
      '49',
      'Liquidity',
      'It should not be inferred that the entire free cash flow amount is available for discretionary capital expenditures.',
    );
    const text = ask(
      'What is the FY2018 capital expenditure amount (in USD millions)? Use the cash flow statement.',
      [prose, cashFlow],
    );
    expect(text).toMatch(/^Purchases of property, plant and equipment \(PP&E\): 2018 \(1,577\)[^[]*\[2\]$/);
  });
});

describe('LocalReranker: statement pages', () => {
  // the balance sheet's rows share no word with the question; the prose and the note do
  const prose =
    'Liquidity. We believe our liquidity profile is healthy; the quick ratio is one measure of liquidity.';
  const sheet =
    'Total current assets 37,857 36,728\nInventories 2,388 3,055\nTotal current liabilities 50,171 47,160';
  const note =
    'Note 7. Debt. Our liquidity needs are met by cash flows from operations and commercial paper.';
  const question = 'Does Costco have a healthy liquidity profile based on its quick ratio for FY2021?';
  /** The reranked order of: the sheet (search ranked it first), the prose, the note. */
  const order = async (sheetSection: string | undefined, q = question) => {
    const r = await new LocalReranker().rerank({
      query: q,
      analysis: analyseQuery(q),
      documents: [sheet, prose, note],
      sections: [sheetSection, 'MD&A > Liquidity', 'Notes > Note 7'],
      topN: 3,
    });
    return r.results.map((x) => x.index);
  };

  it('keeps the search rank of a page of the statement the question reads its metric from', async () => {
    // the quick ratio is read from the balance sheet (libs/text statements.ts)
    expect((await order('Balance sheet > CONSOLIDATED BALANCE SHEETS'))[0]).toBe(0);
    // unlabelled, or a page of another statement, it is ranked by its words and falls behind
    expect((await order(undefined))[0]).toBe(1);
    expect((await order('Income statement > CONSOLIDATED STATEMENTS OF INCOME'))[0]).toBe(1);
    // and so is the balance sheet for a question that reads nothing from it
    expect((await order('Balance sheet', 'Is the liquidity profile of Costco healthy?'))[0]).toBe(1);
  });
});
