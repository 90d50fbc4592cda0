import type { S3Client } from '@aws-sdk/client-s3';
import type { TestApp } from '../support/app';
import { pdfWithNulInText } from '../support/control-char-pdf';
import { encryptedOfficeFile, makeDeck, makeWorkbook } from '../support/office';
import {
  createBucket,
  dbOf,
  documents,
  indexAndWait,
  newAccount,
  paths,
  progress,
  putMany,
  s3,
  s3Credentials,
  searchIndexOf,
  startIndex,
  startIndexingApp,
  waitFor,
} from './support';

const ASK = '/api/v1/document_proxy/ask';
/** A per-file limit the test's large text file is over (the generated deck and workbook are far under). */
const MAX_FILE_BYTES = 400_000;

/**
 * Issue 59 through the real pipeline (S3, Temporal, Postgres, the search engine): a deck and a
 * workbook generated here are indexed a page per slide and per visible sheet, and a question
 * answered only in one of them cites that file and slide or sheet; a corrupt deck and an encrypted
 * workbook end ERROR with a readable reason, a file over INDEXING_MAX_FILE_BYTES ends ERROR naming
 * the limit, a PDF whose text holds U+0000 is indexed, and the rest of the run completes. Then a
 * query made to fail is logged by its error code and step, with no SQL and no document text.
 */
describe('slide decks, workbooks, control characters and large files (issue 59)', () => {
  let app: TestApp;
  let client: S3Client;
  let bucket: string;
  let account: { token: string; accountId: number };

  beforeAll(async () => {
    app = await startIndexingApp({ env: { INDEXING_MAX_FILE_BYTES: String(MAX_FILE_BYTES) } });
    client = s3();
    bucket = await createBucket(client, 'docqa-office');
    account = await newAccount(app);
    const deck = await makeDeck([
      { title: 'Expansion plan', boxes: [{ text: 'Three regions are reviewed this year.', x: 0.5, y: 1.5 }] },
      {
        title: 'Data centre',
        boxes: [{ text: 'The new data centre will be built in Reykjavik.', x: 0.5, y: 1.5 }],
        table: [
          ['Phase', 'Quarter'],
          ['Groundwork', 'Q2'],
        ],
        notes: 'Cooling uses geothermal water from the Hengill plant.',
      },
    ]);
    const vendors = [
      'Harbour Tugs',
      'Alpine Dairy',
      'Baltic Paper',
      'Cedar Print',
      'Delta Couriers',
      'Elm Catering',
    ];
    const workbook = makeWorkbook([
      {
        name: 'Summary',
        rows: [
          ['Metric', 'Figure'],
          ['Active vendors', 7],
          ['Contracts renewed', 1],
        ],
      },
      { name: 'Draft', rows: [['Vendor'], ['Zanzibar Spice Traders']], hidden: true },
      {
        name: 'Vendors',
        rows: [
          ['Vendor', 'Contract value', 'Renewal date'],
          ...vendors.slice(0, 3).map((v, i) => [v, 1000 * (i + 1), null]),
          ['Nordlys Freight', { t: 'n', v: 48250, z: '#,##0.00' }, { t: 'n', v: 45930, z: 'yyyy-mm-dd' }],
          ...vendors.slice(3).map((v, i) => [v, 700 * (i + 1), null]),
        ],
      },
    ]);
    await putMany(client, bucket, [
      { key: 'office/roadmap.pptx', body: deck },
      { key: 'office/vendors.xlsx', body: workbook },
      { key: 'office/broken.pptx', body: Buffer.concat([deck.subarray(0, 200), Buffer.alloc(300, 0x41)]) },
      { key: 'office/locked.xlsx', body: encryptedOfficeFile() },
      {
        key: 'office/filing.pdf',
        body: pdfWithNulInText('Net sales~rose to 34.2 billion dollars', 'Form\u000010-K'),
      },
      { key: 'office/huge.txt', body: 'The archive of minutes. '.repeat(20_000) },
      { key: 'office/memo.txt', body: 'The canteen reopens on Monday.' },
    ]);
  }, 120_000);

  afterAll(async () => {
    client?.destroy();
    await app?.close();
  });

  it('check-source counts decks, workbooks and the files over the size limit; pptx and xlsx are index types', async () => {
    const all = await app.client.post(
      paths.checkSource,
      { docSetName: 'office', credentials: s3Credentials(bucket, 'office/') },
      { token: account.token },
    );
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      sourceFileCount: 7,
      fileTypeCounts: { pptx: 2, xlsx: 2, pdf: 1, txt: 2 },
      tooLargeFileCount: 1,
      message: expect.stringContaining(
        '(1 larger than the per-file limit of 0.4 MB (INDEXING_MAX_FILE_BYTES=400000)',
      ),
    });
    const office = await app.client.post(
      paths.checkSource,
      {
        docSetName: 'office',
        credentials: s3Credentials(bucket, 'office/'),
        indexOptions: { targetIndexTypes: ['pptx', 'xlsx'] },
      },
      { token: account.token },
    );
    expect(office.status).toBe(200);
    expect(office.body).toMatchObject({ sourceFileCount: 4, fileTypeCounts: { pptx: 2, xlsx: 2 } });
  });

  it('indexes the deck and the workbook, fails the broken, locked and oversized files with a reason, completes the rest', async () => {
    await indexAndWait(app, account.token, {
      docSetName: 'office',
      credentials: s3Credentials(bucket, 'office/'),
    });
    expect(await progress(app, account.token, 'office')).toMatchObject({
      completedCount: 4,
      errorCount: 3,
      isIndexing: false,
    });
    const docs = await documents(app, account.accountId, 'office');
    const byName = Object.fromEntries(docs.map((d) => [d.file_name, d]));
    expect(byName['roadmap.pptx']).toMatchObject({ status: 'COMPLETE', page_count: 2 });
    expect(byName['vendors.xlsx']).toMatchObject({ status: 'COMPLETE', page_count: 2 }); // hidden sheet skipped
    expect(byName['filing.pdf']).toMatchObject({ status: 'COMPLETE', page_count: 1 });
    expect(byName['memo.txt']).toMatchObject({ status: 'COMPLETE' });
    expect(byName['broken.pptx']).toMatchObject({
      status: 'ERROR',
      error: expect.stringMatching(/^The PPTX file could not be read \(/),
    });
    expect(byName['locked.xlsx']).toMatchObject({
      status: 'ERROR',
      error: 'The XLSX file is encrypted (password-protected)',
    });
    expect(byName['huge.txt']).toMatchObject({
      status: 'ERROR',
      error:
        'The file (0.5 MB) is larger than the per-file limit of 0.4 MB (INDEXING_MAX_FILE_BYTES=400000); it was not indexed',
    });
  });

  it('stores the PDF whose text held U+0000 without it: pages, summary and title', async () => {
    const db = await dbOf(app);
    try {
      const { rows } = await db.query(
        `SELECT d.summary, d.title, p.text FROM documents d JOIN document_pages p ON p.document_id = d.id
          WHERE d.account_id = $1 AND d.file_name = 'filing.pdf'`,
        [account.accountId],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].text).toContain('Net salesrose to 34.2 billion dollars');
      expect(rows[0].summary).toContain('Net salesrose');
      expect(rows[0].title).toBe('Form10-K');
      const stored = `${rows[0].summary}${rows[0].title ?? ''}${rows[0].text}`;
      expect([...stored].filter((c) => c.charCodeAt(0) < 0x20 && c !== '\n')).toEqual([]);
    } finally {
      await db.end();
    }
  });

  it('answers a question only the deck answers, citing the deck and the slide', async () => {
    const res = await app.client.post(
      ASK,
      { question: 'In which city will the new data centre be built?', docSetNames: ['office'] },
      { token: account.token },
    );
    expect(res.status).toBe(200);
    expect(res.body.answer).toContain('Reykjavik');
    expect(res.body.citations[0]).toMatchObject({ fileName: 'roadmap.pptx', pageNumber: '2' });
  });

  it('answers a question only the workbook answers, citing the workbook and the sheet', async () => {
    const res = await app.client.post(
      ASK,
      { question: 'When is the renewal date of the Nordlys Freight contract?', docSetNames: ['office'] },
      { token: account.token },
    );
    expect(res.status).toBe(200);
    // the row, each value named by its column header, as the sheet displays it
    expect(res.body.answer).toContain(
      'Vendor: Nordlys Freight | Contract value: 48,250.00 | Renewal date: 2025-09-30',
    );
    expect(res.body.citations[0]).toMatchObject({ fileName: 'vendors.xlsx', pageNumber: '2' });
    // the hidden sheet's rows were never indexed
    const hits = await searchIndexOf(app).search({
      accountId: account.accountId,
      docSetNames: ['office'],
      text: 'Zanzibar Spice Traders',
      limit: 10,
      minimumSimilarityScore: 0,
      mode: 'bm25',
    });
    expect(hits.filter((h) => h.chunk.text.includes('Zanzibar'))).toEqual([]);
  });

  it('logs a failed query by its error code and step, never its SQL, parameters or the document text', async () => {
    const db = await dbOf(app);
    try {
      // A page insert that fails for the text it carries: Postgres rejects it with SQLSTATE 23514.
      await db.query(
        `ALTER TABLE document_pages ADD CONSTRAINT no_quokka CHECK (position('Quokka' in text) = 0) NOT VALID`,
      );
    } finally {
      await db.end();
    }
    await putMany(client, bucket, [{ key: 'leak/secret.txt', body: 'Quokka-7731 is the vault passphrase.' }]);
    await startIndex(app, account.token, { docSetName: 'leak', credentials: s3Credentials(bucket, 'leak/') });
    const failedLines = () =>
      app
        .logs()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((l) => l.msg === 'Activity failed');
    const deadline = Date.now() + 60_000;
    while (!failedLines().some((l) => l.errCode === '23514') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 250));
    const failed = failedLines();
    expect(failed).toContainEqual(
      expect.objectContaining({
        errName: 'QueryFailedError',
        errCode: '23514',
        activityType: 'indexSmallDocument',
        workflowId: expect.stringMatching(/^document-index\//),
        attempt: 1,
      }),
    );
    for (const l of failed.filter((f) => f.errName === 'QueryFailedError'))
      expect(Object.keys(l).sort()).not.toContain('errMessage');
    const all = app.logs();
    expect(all).not.toContain('Quokka');
    expect(all).not.toMatch(/INSERT INTO|UPDATE documents SET|unnest\(|\$1/);

    // The next attempt after the database accepts the row indexes the document: nothing was lost.
    const fix = await dbOf(app);
    try {
      await fix.query('ALTER TABLE document_pages DROP CONSTRAINT no_quokka');
    } finally {
      await fix.end();
    }
    await waitFor(app, account.token, 'leak', (p) => !p.isIndexing, 120_000);
    const [doc] = await documents(app, account.accountId, 'leak');
    expect(doc.status).toBe('COMPLETE');
  }, 180_000);
});
