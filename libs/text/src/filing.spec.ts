import {
  companyOfTitle,
  filingMetadata,
  filingTitle,
  fiscalYearsNamed,
  isFiscalPeriodTerm,
  isFiscalYearTerm,
  withPeriodTerms,
} from './filing';

const cover10k = [
  'UNITED STATES',
  'SECURITIES AND EXCHANGE COMMISSION',
  'FORM 10-K',
  'ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934 FOR',
  'THE FISCAL YEAR ENDED May 31, 2020',
  'Commission file number: 001-00001',
  'ACME WIDGETS, INC.',
  '(Exact name of registrant as specified in its charter)',
].join('\n');

describe('filingMetadata', () => {
  it('reads the company, form and fiscal year of a 10-K cover', () => {
    expect(filingMetadata([cover10k])).toEqual({
      form: '10-K',
      company: 'ACME WIDGETS, INC.',
      periodEnd: '2020-05-31',
      fiscalYear: 2020,
    });
  });

  it('takes the capitalised line after the file number where the cover has no caption', () => {
    const cover =
      'FORM 10-K\nFor the fiscal year ended December 31, 2018\nCommission file number 1-0000\nACME COMPANY\nState of Incorporation: Delaware';
    expect(filingMetadata([cover]).company).toBe('ACME COMPANY');
  });

  it('names a 52/53-week year that ends in early January for the year before', () => {
    const cover =
      'FORM 10-K\nFor the fiscal year ended January 1, 2023\nACME\n(Exact name of registrant as specified in its charter)';
    expect(filingMetadata([cover]).fiscalYear).toBe(2022);
  });

  it('reads the fiscal quarter a 10-Q states, and the report date of an 8-K', () => {
    const q = filingMetadata([
      'FORM 10-Q\nFor the quarterly period ended July 29, 2023\nACME CO.\n(Exact name of registrant as specified in its charter)',
      'Results for the second quarter of fiscal 2024 were in line.',
    ]);
    expect(q).toMatchObject({ form: '10-Q', periodEnd: '2023-07-29', fiscalYear: 2024, fiscalQuarter: 2 });
    const k = filingMetadata([
      'FORM 8-K\nCURRENT REPORT\nDate of report (Date of earliest event reported):\nAugust 30, 2023\nAcme Corp\n(Exact name of registrant as specified in its charter)',
    ]);
    expect(k).toEqual({ form: '8-K', company: 'Acme Corp', periodEnd: '2023-08-30' });
  });

  it('recognises an earnings release', () => {
    const release =
      'FOR IMMEDIATE RELEASE\nSpringfield (January 24, 2023) – Acme Corp (NYSE: ACM) today announced results for fourth-\nquarter and full year 2022.';
    expect(filingMetadata([release])).toEqual({
      form: 'earnings release',
      company: 'Acme Corp',
      ticker: 'ACM',
      fiscalQuarter: 4,
      fiscalYear: 2022,
    });
  });

  it("reads the trading symbol of the registrant's common stock from the cover", () => {
    const cover = (rows: string[]) =>
      `${cover10k}\nSecurities registered pursuant to Section 12(b) of the Act:\n${rows.join('\n')}`;
    const symbol = (rows: string[]) => filingMetadata([cover(rows)]).ticker;
    expect(
      symbol([
        'Title of each class Trading Symbol Name of each exchange on which registered',
        '0.650% Notes Due May 2024 ACW24C New York Stock Exchange',
        'Common Stock, Par Value $1.00 ACW New York Stock Exchange',
      ]),
    ).toBe('ACW');
    // the caption after the row, a class of shares, the exchange's long name
    expect(
      symbol([
        'Class B Common Stock ACWB The Nasdaq Global Select Market',
        '(Title of each class) (Trading symbol) (Name of each exchange on which registered)',
      ]),
    ).toBe('ACWB');
    expect(symbol(['Common stock, $0.00000625 par value per share ACW NASDAQ'])).toBe('ACW');
    // covers before 2019 list no symbol, and a debt security's symbol is not the company's
    expect(symbol(['Title of each class Name of each exchange on which registered'])).toBeUndefined();
    expect(symbol(['1.500% Notes due 2026 ACW26 New York Stock Exchange'])).toBeUndefined();
  });

  it('finds nothing in a document that is no filing', () => {
    expect(filingMetadata(['The R Project manual\nIntroduction to R'])).toEqual({});
    expect(filingTitle({})).toBe('');
  });
});

describe('filingTitle', () => {
  it('writes the metadata as questions name a filing', () => {
    expect(
      filingTitle({
        company: 'ACME CO.',
        ticker: 'ACM',
        form: '10-Q',
        periodEnd: '2023-07-29',
        fiscalYear: 2024,
        fiscalQuarter: 2,
      }),
    ).toBe(
      'ACME CO. | ACM | 10-Q quarterly report | FY2024 fiscal 2024 | Q2 FY2024 | period ended 2023-07-29',
    );
  });
});

describe('companyOfTitle', () => {
  it("reads the company and ticker of a filing's title, without the legal form", () => {
    expect(
      companyOfTitle(filingTitle({ company: 'THE BOEING COMPANY', ticker: 'BA', form: '10-K' })),
    ).toEqual({
      name: 'BOEING',
      ticker: 'BA',
    });
    expect(
      companyOfTitle(
        'Johnson & Johnson | JNJ | earnings release | FY2022 fiscal 2022 | JOHNSON JOHNSON 2022Q4',
      ),
    ).toEqual({ name: 'Johnson & Johnson', ticker: 'JNJ' });
    expect(companyOfTitle('PFIZER INC. | 10-Q quarterly report | FY2023 fiscal 2023')).toEqual({
      name: 'PFIZER',
    });
    // a filing whose cover names no company, and a document that is no filing
    expect(companyOfTitle('10-K annual report | FY2017 fiscal 2017 | COCACOLA 2017 10K')).toBeUndefined();
    expect(companyOfTitle('An Introduction to R | R-intro')).toBeUndefined();
  });
});

describe('isFiscalYearTerm, isFiscalPeriodTerm', () => {
  it('tells the fiscal-year stems, and the periods a question writes', () => {
    expect(['lockhe', 'fy2021', 'net', 'fy2020', '2021', 'fy21'].filter(isFiscalYearTerm)).toEqual([
      'fy2021',
      'fy2020',
    ]);
    expect(['fy2018', 'fy18', 'q2', 'q22023', 'quarter', '2023', 'fy'].filter(isFiscalPeriodTerm)).toEqual([
      'fy2018',
      'fy18',
      'q2',
      'q22023',
      'fy',
    ]);
  });
});

describe('fiscalYearsNamed', () => {
  it('reads the fiscal years of years and quarters a question names', () => {
    expect(fiscalYearsNamed('Which region had the biggest drop in Q22023 revenues?')).toEqual(['fy2023']);
    expect(
      fiscalYearsNamed('Cash between FY 2023 and Q2 of FY2024, and in fiscal year 2022?').sort(),
    ).toEqual(['fy2022', 'fy2023', 'fy2024']);
    expect(fiscalYearsNamed('How did revenue develop in 2023?')).toEqual([]);
  });
});

describe('withPeriodTerms', () => {
  it('adds the periods a question names in the form filings carry them', () => {
    expect(withPeriodTerms('What is the FY 2022 capex?')).toBe('What is the FY 2022 capex? FY2022');
    expect(withPeriodTerms('Did PPNE grow between FY20 and FY21?')).toBe(
      'Did PPNE grow between FY20 and FY21? FY2020 FY2021',
    );
    expect(withPeriodTerms('Any drop between FY 2023 and Q2 of FY2024?')).toContain('Q2 FY2024');
    expect(withPeriodTerms("As of Q2'2023, is it spinning off a segment?")).toContain('Q2 FY2023');
    expect(withPeriodTerms('Biggest drop in Q22023 revenues?')).toContain('Q2 FY2023');
    expect(withPeriodTerms('How do I set the margins?')).toBe('How do I set the margins?');
  });
});
