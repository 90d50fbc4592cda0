import { documentContext, embeddingText, fileNameWords, firstHeading, nameCounts } from './document-context';

describe('document context', () => {
  it('splits file names into words (codes and tickers kept whole)', () => {
    expect(fileNameWords('reports/AAPL_10-Q_2023Q1.pdf')).toBe('AAPL 10-Q 2023Q1');
    expect(fileNameWords('GS9_Color_Management.pdf')).toBe('GS9 Color Management');
    expect(fileNameWords('quarterlyReport.docx')).toBe('quarterly Report');
  });

  it('takes the first heading lines of page 1, skipping running headers', () => {
    expect(
      firstHeading(
        'Page 1 of 4\nNational Transportation Safety Board\nAviation Accident Final Report\nLocation: X',
      ),
    ).toBe('National Transportation Safety Board Aviation Accident Final Report');
    expect(firstHeading('1\n\nAn Introduction to R\nNotes on R')).toBe('An Introduction to R Notes on R');
  });

  it('takes no paragraph for a heading: only the short first sentence of a longer line', () => {
    expect(
      firstHeading('Holiday policy. Every employee gets thirty days of paid leave. Reference code X1.\nMore'),
    ).toBe('Holiday policy');
    expect(
      firstHeading(
        'The committee met on Monday and agreed that the budget for the next year would stay flat.',
      ),
    ).toBe('');
    expect(firstHeading('Annual Report 2023\nThe year in review. Sales grew.')).toBe('Annual Report 2023');
    // a one-sentence document has no title of its own (its words are what it says)
    expect(firstHeading('The office wifi password is hunter2 for the staff network.')).toBe('');
    expect(firstHeading('Apple Inc.\nFORM 10-Q')).toBe('Apple Inc. FORM 10-Q');
  });

  it('counts proper names and identifiers, not common words, form labels or heading words', () => {
    const pages = [
      'Pilot Information\nLocation: Tallahassee, FL Registration: N5921D\nThe pilot flew to Tallahassee. The airplane was a Piper.',
      'Pilot Information\nFlight Time: 2319 hours\nThe pilot of the Piper PA-22-150 said the airplane was fine.',
    ];
    const names = nameCounts(pages);
    expect([...names.keys()]).toEqual(
      expect.arrayContaining(['Tallahassee', 'N5921D', 'Piper', 'PA-22-150', 'FL']),
    );
    for (const common of ['The', 'Pilot', 'Information', 'Location', 'Registration', 'Time', '2319'])
      expect(names.has(common)).toBe(false);
    expect(names.get('Tallahassee')).toEqual({ count: 2, pages: 1, onFirstPage: true });
  });

  it('builds title and terms: metadata title or first heading, file words, names, date tokens', () => {
    const pages = [
      'Apple Inc.\nFORM 10-Q\nFor the quarterly period ended July 1, 2023\nApple Inc. designs products.',
      'Net sales of Apple rose. iPhone net sales fell. Apple Inc. reported results for the quarter ended July 1, 2023.',
    ];
    const ctx = documentContext({ fileName: 'AAPL_10Q_2023Q3.pdf', title: null, pages });
    // A filing's company (when its cover names it), form and period lead; a fiscal quarter only
    // where the filing says which (a quarter ending July 1 is Apple's third, not the calendar's second).
    expect(ctx.title).toBe('Apple Inc. FORM 10-Q | AAPL 10Q 2023Q3');
    expect(ctx.filing).toBe('10-Q quarterly report | FY2023 fiscal 2023 | period ended 2023-07-01');
    expect(ctx.terms.split(' ')).toEqual(expect.arrayContaining(['Apple', '20230701', '202307']));
    expect(ctx.keyTerms[0]).toBe('Apple');
    const titled = documentContext({ fileName: 'x.pdf', title: 'Quarterly Report', pages });
    expect(titled.title).toBe('Quarterly Report | x');
    expect(documentContext({ fileName: 'y.pdf', title: 'Microsoft Word - y.docx', pages }).title).toMatch(
      /^Apple Inc\./,
    );
    // A document that is no filing keeps its heading first.
    const manual = ['Apple Inc. User Guide\nHow to set up your device.'];
    expect(documentContext({ fileName: 'guide.pdf', title: null, pages: manual })).toMatchObject({
      title: 'Apple Inc. User Guide | guide',
      filing: '',
    });
  });

  it('puts a bounded context head in front of the embedded text', () => {
    const ctx = { title: 'T'.repeat(300), terms: 'x', keyTerms: ['Apple'], filing: '' };
    const text = embeddingText(ctx, 'Results', 'chunk body');
    expect(text.endsWith('\nchunk body')).toBe(true);
    expect(text.split('\n')[0].length).toBeLessThanOrEqual(240);
    expect(embeddingText({ title: '', terms: '', keyTerms: [], filing: '' }, '', 'body')).toBe('body');
  });
});
