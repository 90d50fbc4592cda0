import { startTestApp, TestApp } from '../support/app';
import { seedDocuments, SeedDocument } from '../support/seed';
import { ASK, Caller, expectMarkersResolve, newCaller } from './support';

/**
 * Trend questions over periodic reports (issue 14): in a docset of several companies' quarterly
 * reports, "How has Apple's total net sales changed over time?" is answered from each of Apple's
 * reports (one quarter each), never from another company's and not from one quarter alone. The
 * reports are written like 10-Q filings: the file name carries the ticker, not the company name,
 * the cover page is boilerplate, and the pages that state the figures rarely repeat the name.
 */
interface Quarter {
  label: string;
  ended: string;
  figure: string;
  change: string;
}

function tenQ(company: string, ticker: string, measure: string, q: Quarter): SeedDocument {
  return {
    docSetName: 'filings',
    fileName: `${ticker}-10q-${q.label.replace(/\W/g, '').toLowerCase()}.pdf`,
    pages: [
      `UNITED STATES SECURITIES AND EXCHANGE COMMISSION Washington, D.C. 20549 FORM 10-Q (Mark One) ` +
        `QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934 For the ` +
        `quarterly period ended ${q.ended}. ${company} (Exact name of Registrant as specified in its charter). ` +
        `Indicate by check mark whether the Registrant has filed all reports required to be filed.`,
      `${company} CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS (Unaudited) (In millions, except ` +
        `number of shares). Three Months Ended ${q.ended}. Cost of sales, operating expenses, research ` +
        `and development, selling, general and administrative. Provision for income taxes. ` +
        `See accompanying Notes to Condensed Consolidated Financial Statements. ${company} | ${q.label} Form 10-Q | 2`,
      `Item 2. Management's Discussion and Analysis of Financial Condition and Results of Operations. ` +
        `${q.label} Highlights. ${measure} ${q.change} to ${q.figure} for the three months ended ${q.ended}, ` +
        `compared to the same quarter a year ago. Foreign currency weakness had an unfavourable effect. ` +
        `Segment operating performance is discussed below. ${company} | ${q.label} Form 10-Q | 3`,
    ],
  };
}

const APPLE: Quarter[] = [
  { label: 'Q1 2023', ended: 'December 31, 2022', figure: '$117.2 billion', change: 'decreased 5%' },
  { label: 'Q2 2023', ended: 'April 1, 2023', figure: '$94.8 billion', change: 'decreased 3%' },
  { label: 'Q3 2023', ended: 'July 1, 2023', figure: '$81.8 billion', change: 'decreased 1%' },
];
const MICROSOFT: Quarter[] = [
  { label: 'Q1 2023', ended: 'September 30, 2022', figure: '$50.1 billion', change: 'increased 11%' },
  { label: 'Q2 2023', ended: 'December 31, 2022', figure: '$52.7 billion', change: 'increased 2%' },
  { label: 'Q3 2023', ended: 'March 31, 2023', figure: '$52.9 billion', change: 'increased 7%' },
];

describe.each([
  ['embedded', true],
  ['elasticsearch', false],
])('POST /ask: trend questions over periodic reports (%s engine)', (_engine, embeddedSearch) => {
  let app: TestApp;
  let caller: Caller;

  beforeAll(async () => {
    app = await startTestApp({ embeddedSearch });
    caller = await newCaller(app);
    await seedDocuments(app, caller.accountId, [
      ...APPLE.map((q) => tenQ('Apple Inc.', 'aapl', 'Total net sales', q)),
      ...MICROSOFT.map((q) => tenQ('Microsoft Corporation', 'msft', 'Total revenue', q)),
    ]);
  }, 300_000);

  afterAll(async () => {
    await app?.close();
  });

  const ask = async (question: string) => {
    const res = await app.client.post(ASK, { question, docSetNames: ['filings'] }, { token: caller.token });
    expect(res.status).toBe(200);
    expectMarkersResolve(res.body.answer, res.body.citations);
    const files = [...new Set((res.body.citations as Array<{ fileName: string }>).map((c) => c.fileName))];
    return { answer: res.body.answer as string, files };
  };

  /** Where each quarter's figure stands in the answer, in calendar order of the quarters (-1: absent). */
  const positions = (answer: string, quarters: Quarter[]) =>
    quarters.map((q) => answer.indexOf(q.figure)).filter((at) => at >= 0);

  it("answers from several of the named company's quarterly reports, none of another company's, earliest first", async () => {
    const { answer, files } = await ask("How has Apple's total net sales changed over time?");
    expect(files.filter((f) => f.startsWith('aapl-')).length).toBeGreaterThanOrEqual(2);
    expect(files.filter((f) => !f.startsWith('aapl-'))).toEqual([]);
    const at = positions(answer, APPLE);
    expect(at.length).toBeGreaterThanOrEqual(2);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  it('does the same for the other company, asked in other words', async () => {
    const { answer, files } = await ask(
      "How did Microsoft's total revenue change over the last three quarters?",
    );
    expect(files.filter((f) => f.startsWith('msft-')).length).toBeGreaterThanOrEqual(2);
    expect(files.filter((f) => !f.startsWith('msft-'))).toEqual([]);
    const at = positions(answer, MICROSOFT);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });
});
