import { headerAbove, isTableLine, quoteRow, rowQuotes, tableHeader, tableRow } from './table-lines';

describe('tableRow', () => {
  it('splits a statement line into its label and figures', () => {
    expect(tableRow('Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)')).toEqual({
      label: 'Purchases of property, plant and equipment (PP&E)',
      figures: ['(1,577)', '(1,373)', '(1,420)'],
    });
    expect(tableRow('Net income including noncontrolling interest $ 5,363 $ 4,869 $ 5,058')).toEqual({
      label: 'Net income including noncontrolling interest',
      figures: ['$5,363', '$4,869', '$5,058'],
    });
    expect(tableRow('Other — net 9 (6) (4)')?.figures).toEqual(['9', '(6)', '(4)']);
    expect(tableRow('Gross margin 23.5% 22.1%')?.figures).toEqual(['23.5%', '22.1%']);
    expect(tableRow('Total assets $ 36,500')?.figures).toEqual(['$36,500']);
  });

  it('leaves prose, page references and headers alone', () => {
    expect(tableRow('The cache is cleared at exit.')).toBeUndefined();
    expect(tableRow('Revenue grew strongly in 2018')).toBeUndefined();
    expect(tableRow('Item 7. Management’s Discussion and Analysis 25')).toBeUndefined();
    expect(tableRow('see page 12')).toBeUndefined();
    expect(tableRow('1,577 1,373')).toBeUndefined();
    expect(tableRow('(Millions) 2018 2017 2016')).toBeUndefined();
    // date captions: the "figure" is a day
    expect(tableRow('Year Ended May 31,')).toBeUndefined();
    expect(tableRow('August 29,')).toBeUndefined();
  });
});

describe('tableHeader', () => {
  it('reads the periods of a header line', () => {
    expect(tableHeader('(Millions) 2018 2017 2016')).toEqual(['2018', '2017', '2016']);
    expect(tableHeader('Years ended December 31, 2018 2017')).toEqual(['2018', '2017']);
    expect(tableHeader('December 31, 2022 December 31, 2021')).toEqual(['2022', '2021']);
    expect(tableHeader('Fiscal FY2019 FY2018')).toEqual(['2019', '2018']);
  });

  it('keeps the dates of columns that share a year', () => {
    expect(tableHeader('July 29, 2023 January 28, 2023 July 30, 2022')).toEqual([
      'July 29, 2023',
      'January 28, 2023',
      'July 30, 2022',
    ]);
    expect(tableHeader('Sept. 30, 2023 Dec. 31, 2023')).toEqual(['Sept 30, 2023', 'Dec 31, 2023']);
    // shared years without a date for each column stay years
    expect(tableHeader('Three Months Ended 2023 2023 2022')).toEqual(['2023', '2023', '2022']);
  });

  it('is no header with one year, other figures or a sentence', () => {
    expect(tableHeader('Annual report 2018')).toBeUndefined();
    expect(tableHeader('Net sales 2018 1,577 2017')).toBeUndefined();
    expect(
      tableHeader(
        'In 2018 and 2017 the company repurchased shares under the program approved by its board of directors',
      ),
    ).toBeUndefined();
  });
});

describe('quoteRow', () => {
  it('pairs each figure with its period when the counts agree', () => {
    const row = tableRow('Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)')!;
    expect(quoteRow(row, ['2018', '2017', '2016'])).toBe(
      'Purchases of property, plant and equipment (PP&E): 2018 (1,577), 2017 (1,373), 2016 (1,420)',
    );
    expect(quoteRow(row, ['2018', '2017'])).toBe(
      'Purchases of property, plant and equipment (PP&E): (1,577) (1,373) (1,420)',
    );
  });
});

describe('headerAbove', () => {
  const page = [
    'Consolidated Statement of Cash Flows',
    '(Millions) 2018 2017 2016',
    'Net income $ 5,363 $ 4,869 $ 5,058',
    'Cash Flows from Investing Activities',
    'Purchases of PP&E (1,577) (1,373) (1,420)',
  ].join('\n');

  it('finds the header of the table a chunk starts in', () => {
    expect(headerAbove(page, page.indexOf('Purchases'))).toBe('(Millions) 2018 2017 2016');
    expect(isTableLine('(Millions) 2018 2017 2016')).toBe(true);
  });

  it('finds none once prose came between', () => {
    const prose = `${page}\nThe accompanying notes are an integral part of these statements and should be read with them in full.\nMore text`;
    expect(headerAbove(prose, prose.indexOf('More text'))).toBeUndefined();
  });
});

describe('rowQuotes', () => {
  it('reads a header of dates the text broke over lines', () => {
    const text = ['August 29,', '2021 August 30,', '2020', 'TOTAL ASSETS $ 59,268 $ 55,556'].join('\n');
    expect(rowQuotes(text).get('TOTAL ASSETS $ 59,268 $ 55,556')).toBe(
      'TOTAL ASSETS: 2021 $59,268, 2020 $55,556',
    );
  });

  it('quotes a quarter-end and a year-end column of one year by their dates', () => {
    const text = [
      'July 29, 2023 January 28, 2023 July 30, 2022',
      'Cash and cash equivalents $ 1,093 $ 1,874 $ 840',
    ].join('\n');
    expect(rowQuotes(text).get('Cash and cash equivalents $ 1,093 $ 1,874 $ 840')).toBe(
      'Cash and cash equivalents: July 29, 2023 $1,093, January 28, 2023 $1,874, July 30, 2022 $840',
    );
  });

  it('joins no lines across prose', () => {
    const text = [
      '2021 was a year of growth for the company and every one of its warehouses in the country.',
      '2020',
      'TOTAL ASSETS $ 59,268 $ 55,556',
    ].join('\n');
    expect(rowQuotes(text).get('TOTAL ASSETS $ 59,268 $ 55,556')).toBe('TOTAL ASSETS: $59,268 $55,556');
  });
});
