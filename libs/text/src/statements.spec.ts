import { statementOfPage, statementsAsked, statementsNamed } from './statements';

const rows = [
  'Net income including noncontrolling interest $ 5,363 $ 4,869 $ 5,058',
  'Depreciation and amortization 1,488 1,544 1,474',
  'Accounts receivable (305) (245) (313)',
  'Inventories (509) (387) 57',
  'Accounts payable 408 24 148',
  'Net cash provided by (used in) operating activities 6,439 6,240 6,662',
  'Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)',
  'Proceeds from sale of PP&E and other assets 262 49 58',
];
const page = (...head: string[]) => [...head, '(Millions) 2018 2017 2016', ...rows].join('\n');

describe('statementOfPage', () => {
  it('reads the statement a page titles in its first lines, over a body of rows', () => {
    expect(
      statementOfPage(
        page('Table of Contents', '3M Company and Subsidiaries', 'Consolidated Statement of Cash Flows'),
      ),
    ).toBe('cash-flow');
    expect(statementOfPage(page('CONSOLIDATED STATEMENTS OF OPERATIONS'))).toBe('income');
    expect(statementOfPage(page('Consolidated Statements of Earnings'))).toBe('income');
    expect(statementOfPage(page('Consolidated Statements of Financial Position'))).toBe('balance');
    expect(statementOfPage(page("Consolidated Statements of Shareholders' Equity"))).toBe('equity');
  });

  it('matches a title the PDF text breaks inside a word', () => {
    expect(statementOfPage(page('Consolidated Balance Shee t'))).toBe('balance');
    expect(statementOfPage(page('Consolidated Statement of Cash Flow s'))).toBe('cash-flow');
  });

  it('is none for an index of the statements, prose about one, or notes', () => {
    const index = [
      'Consolidated Statement of Income for the years ended 2018 56',
      'Consolidated Balance Sheet at December 31, 2018 58',
      ...rows,
    ].join('\n');
    expect(statementOfPage(index)).toBeUndefined();
    const prose = [
      'Consolidated Statement of Cash Flows',
      'Cash flows from operations rose in 2018, as the table in the next section explains at length.',
      'Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)',
    ].join('\n');
    expect(statementOfPage(prose)).toBeUndefined();
    expect(statementOfPage(page('Notes to Consolidated Financial Statements'))).toBeUndefined();
    expect(statementOfPage(page('Comprehensive Income'))).toBeUndefined();
    // a note's page, whatever statement its heading or first lines name
    expect(
      statementOfPage(page('NOTE 7. Supplemental Balance Sheet Information', 'Consolidated Balance Sheets')),
    ).toBeUndefined();
    expect(
      statementOfPage(
        page('Notes to Consolidated Financial Statements', 'Consolidated Statements of Income'),
      ),
    ).toBeUndefined();
    expect(statementOfPage(page('Note 4—Cash Flow Statement Details'))).toBeUndefined();
    expect(
      statementOfPage(page('Supplemental balance sheet information related to leases is as follows:')),
    ).toBeUndefined();
  });

  it('is none for a title far down the page', () => {
    const late = [...rows, 'Consolidated Statement of Cash Flows', ...rows].join('\n');
    expect(statementOfPage(late)).toBeUndefined();
  });
});

describe('statementsNamed', () => {
  it('reads the statements a question names, by title or common name', () => {
    expect(statementsNamed('What is the FY2018 capex? Use the cash flow statement.')).toEqual(['cash-flow']);
    expect(statementsNamed('... shown in the statement of cash flows')).toEqual(['cash-flow']);
    expect(statementsNamed('using the balance sheet and the P&L statement')).toEqual(['balance', 'income']);
    expect(statementsNamed('in the statement of income and the statement of financial position')).toEqual([
      'balance',
      'income',
    ]);
    expect(statementsNamed('from the consolidated statements of operations')).toEqual(['income']);
    expect(statementsNamed('What was the largest liability in the Balance Sheet in 2022?')).toEqual([
      'balance',
    ]);
  });

  it('names none in questions that only mention cash, income or a sheet', () => {
    expect(statementsNamed('How much cash did operations generate?')).toEqual([]);
    expect(statementsNamed('What is the income tax rate?')).toEqual([]);
    expect(statementsNamed('Which sheet lists the balance of each account?')).toEqual([]);
  });
});

describe('statementsAsked', () => {
  it('takes the statements a question names first', () => {
    expect(statementsAsked('What were net sales? Use the balance sheet.')).toEqual(['balance']);
  });

  it('reads them from the metrics a question names otherwise', () => {
    expect(statementsAsked('What is the FY2018 capex for 3M?')).toEqual(['cash-flow']);
    expect(statementsAsked('What drove gross margin change as of FY2022?')).toEqual(['income']);
    expect(statementsAsked("What is Nike's net working capital?")).toEqual(['balance']);
    expect(statementsAsked('Fixed asset turnover: FY2019 revenue / average PP&E')).toEqual([
      'balance',
      'income',
    ]);
  });

  it('asks for none in questions about other things', () => {
    expect(statementsAsked('Who are the primary customers of Boeing?')).toEqual([]);
    expect(statementsAsked('How do I configure the mail server?')).toEqual([]);
  });
});
