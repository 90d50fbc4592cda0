import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startTestApp, TestApp } from '../support/app';
import { infra, uniqueName } from '../support/infra';
import { minimalPdf } from '../support/pdf';
import { ASK, Caller, expectMarkersResolve, newCaller, SEARCH } from './support';

const S3_KEYS = { accessKeyId: 'docqa-filings-key', secretAccessKey: 'docqa-filings-secret' };

/**
 * A 10-K of `company` (trading as `ticker`) for fiscal `year`: a cover page, a page of prose, a
 * cash-flow statement.
 */
function tenK(company: string, ticker: string, year: number, capex: [string, string, string]): Buffer {
  const cover = [
    'UNITED STATES',
    'SECURITIES AND EXCHANGE COMMISSION',
    'FORM 10-K',
    'ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934',
    `For the fiscal year ended December 31, ${year}`,
    'Commission file number 1-0000',
    company,
    '(Exact name of registrant as specified in its charter)',
    'Securities registered pursuant to Section 12(b) of the Act:',
    'Title of each class Trading Symbol Name of each exchange on which registered',
    `Common Stock, $1 par value ${ticker} New York Stock Exchange`,
  ].join('\n');
  const prose = [
    'Item 7. Management Discussion and Analysis',
    'The company sells industrial products to customers in many countries.',
    'Sales grew in most regions, and the company kept investing in its plants.',
    'As the cash flow statement shows, capital spending was funded from operations.',
  ].join('\n');
  const cashFlow = [
    'Consolidated Statement of Cash Flows',
    'Years ended December 31',
    `(Millions) ${year} ${year - 1} ${year - 2}`,
    'Cash Flows from Operating Activities',
    'Net income including noncontrolling interest $ 5,363 $ 4,869 $ 5,058',
    'Depreciation and amortization 1,488 1,544 1,474',
    'Accounts receivable (305) (245) (313)',
    'Inventories (509) (387) 57',
    'Accounts payable 408 24 148',
    'Net cash provided by operating activities 6,439 6,240 6,662',
    'Cash Flows from Investing Activities',
    `Purchases of property, plant and equipment (PP&E) ${capex.join(' ')}`,
    'Proceeds from sale of PP&E and other assets 262 49 58',
  ].join('\n');
  return minimalPdf([cover, prose, cashFlow]);
}

/**
 * Filings of one company for several years (issue 58): the cover's company, form and period are
 * read at indexing time, shown in /documents/metadata, and route a question that names a fiscal
 * year to that year's filing; the statement's rows are answers, quoted with their periods.
 */
describe('filings: metadata, period routing and table rows through the pipeline', () => {
  let app: TestApp;
  let caller: Caller;

  beforeAll(async () => {
    app = await startTestApp({
      worker: true,
      env: { S3_ENDPOINT: infra().s3Endpoint, S3_FORCE_PATH_STYLE: 'true', S3_REGION: 'us-east-1' },
    });
    caller = await newCaller(app);
    const s3 = new S3Client({
      endpoint: infra().s3Endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { ...S3_KEYS },
    });
    const bucket = uniqueName('docqa-filings').toLowerCase();
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const files: Record<string, Buffer> = {
      'acme-annual-a.pdf': tenK('ACME WIDGETS, INC.', 'ACW', 2018, ['(1,577)', '(1,373)', '(1,420)']),
      'acme-annual-b.pdf': tenK('ACME WIDGETS, INC.', 'ACW', 2019, ['(1,699)', '(1,577)', '(1,373)']),
      'zenith-annual.pdf': tenK('ZENITH MOTORS CORPORATION', 'ZMC', 2019, ['(9,100)', '(8,800)', '(8,500)']),
    };
    for (const [Key, Body] of Object.entries(files))
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `filings/${Key}`, Body }));
    s3.destroy();
    const started = await app.client.post(
      '/api/v1/document_proxy/index',
      { docSetName: 'filings', credentials: { ...S3_KEYS, bucket, prefix: 'filings/' } },
      { token: caller.token },
    );
    if (started.status !== 202) throw new Error(`POST /index: ${started.status} ${started.text}`);
    const deadline = Date.now() + 300_000;
    for (;;) {
      const p = await app.client.get('/api/v1/document_proxy/index/progress/filings', {
        token: caller.token,
      });
      if (p.status === 200 && !p.body.isIndexing && p.body.completedCount === 3) break;
      if (Date.now() > deadline) throw new Error(`indexing did not finish: ${p.text}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }, 400_000);

  afterAll(() => app?.close());

  it('shows each filing’s company, ticker, form and period in the docset metadata', async () => {
    const res = await app.client.get('/api/v1/document_proxy/documents/metadata/filings', {
      token: caller.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.filings).toEqual([
      expect.objectContaining({
        fileName: 'acme-annual-a.pdf',
        company: 'ACME WIDGETS, INC.',
        ticker: 'ACW',
        form: '10-K',
        periodEnd: '2018-12-31',
        fiscalYear: 2018,
      }),
      expect.objectContaining({ fileName: 'acme-annual-b.pdf', fiscalYear: 2019, form: '10-K' }),
      expect.objectContaining({
        fileName: 'zenith-annual.pdf',
        company: 'ZENITH MOTORS CORPORATION',
        ticker: 'ZMC',
      }),
    ]);
  });

  it.each([
    ['FY2018', 'acme-annual-a.pdf', '2018 (1,577)'],
    ['FY 2019', 'acme-annual-b.pdf', '2019 (1,699)'],
  ])(
    'answers a figure of the %s filing from its statement row, with the periods',
    async (period, file, quoted) => {
      const question = `How much were ACME's purchases of property, plant and equipment in ${period}?`;
      const res = await app.client.post(ASK, { question, docSetNames: ['filings'] }, { token: caller.token });
      expect(res.status).toBe(200);
      expect(res.body.answer).toContain(`Purchases of property, plant and equipment (PP&E): ${quoted}`);
      expect(res.body.citations[0]).toMatchObject({ fileName: file, pageNumber: '3' });
      expectMarkersResolve(res.body.answer, res.body.citations);
    },
  );

  it("answers capital expenditure from the asked year's statement row, citing that filing only", async () => {
    // the question names the line item as analysts do; the statement prints it as purchases of PP&E
    const question = "What was ACME's FY2018 capital expenditure? Use the cash flow statement.";
    const res = await app.client.post(ASK, { question, docSetNames: ['filings'] }, { token: caller.token });
    expect(res.status).toBe(200);
    expect(res.body.answer).toMatch(/^Purchases of property, plant and equipment \(PP&E\): 2018 \(1,577\)/);
    expect(res.body.citations.length).toBeGreaterThan(0);
    for (const c of res.body.citations) expect(c).toMatchObject({ fileName: 'acme-annual-a.pdf' });
    expectMarkersResolve(res.body.answer, res.body.citations);
  });

  it('answers from the latest annual report by its period, not its file name', async () => {
    const question =
      "What were ACME's purchases of property, plant and equipment in its latest annual report?";
    const res = await app.client.post(ASK, { question, docSetNames: ['filings'] }, { token: caller.token });
    expect(res.status).toBe(200);
    // both ACME filings print the row; the latest period's filing leads
    expect(res.body.citations[0]).toMatchObject({ fileName: 'acme-annual-b.pdf' });
  });

  it('ranks the named cash flow statement of the filing asked about among the first results', async () => {
    // the prose page says "cash flow statement" and "capital spending"; the statement says neither
    const query = "What was ACME's FY2018 capital spending? Use the cash flow statement.";
    const res = await app.client.post(
      SEARCH,
      { query, docSetNames: ['filings'], limit: 9 },
      { token: caller.token },
    );
    expect(res.status).toBe(200);
    const pages = res.body.results.map(
      (r: { fileName: string; pageNumber: string }) => `${r.fileName}#${r.pageNumber}`,
    );
    expect(pages.slice(0, 2)).toContain('acme-annual-a.pdf#3');
    expect(pages.indexOf('acme-annual-a.pdf#3')).toBeLessThan(pages.indexOf('acme-annual-b.pdf#3'));
  });
});
