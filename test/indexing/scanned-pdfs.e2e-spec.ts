import type { S3Client } from '@aws-sdk/client-s3';
import { defaultPayloadConverter } from '@temporalio/common';
import { documentWorkflowId } from '@docqa/workflow-contract';
import { ASK, expectMarkersResolve, norm } from '../ask/support';
import type { TestApp } from '../support/app';
import { minimalPdf } from '../support/pdf';
import { scannedPdf } from '../support/scanned-pdf';
import {
  createBucket,
  dbOf,
  documents,
  newAccount,
  paths,
  putMany,
  runRow,
  s3,
  s3Credentials,
  startIndex,
  startIndexingApp,
  temporalOf,
  waitFor,
} from './support';

const OCR_OFF_REASON =
  'The PDF has no extractable text (scanned pages need OCR, which this run turned off: indexOptions.ocr)';

/**
 * Pages of the long scan: about 4 s of CPU each (docs/benchmarks/ocr.md), so with 2 cores OCR
 * still runs when the activity's throttled heartbeat (every 16 s: 80% of its 20 s timeout) reaches
 * Temporal.
 */
const LONG_SCAN_PAGES = 14;

/** A page of `lines` lines of text with words of its own, for the long scan. */
function denseLines(page: number, lines = 35): string[] {
  return Array.from(
    { length: lines },
    (_, i) => `Page ${page} line ${i + 1}: the dredger logged soundings near buoy ${page * 100 + i} at dawn.`,
  );
}

/**
 * Issue 59, scanned PDFs: pages without a text layer are read by OCR in the worker through the
 * whole pipeline (S3, Temporal, Elasticsearch); a question answered only on a scanned page cites
 * that file and page; `indexOptions.ocr: false` ends a PDF of scans ERROR with a readable reason
 * while the rest of the run completes; the activity's heartbeat names the page OCR reads.
 */
describe('scanned PDFs (OCR)', () => {
  let app: TestApp;
  let client: S3Client;
  let bucket: string;

  beforeAll(async () => {
    app = await startIndexingApp();
    client = s3();
    bucket = await createBucket(client);
    const handbook = await scannedPdf([
      { typed: ['Port Ellison harbour handbook.', 'Typed cover page: contents and contacts.'] },
      {
        scanned: [
          'Harbour staff of Port Ellison.',
          'The harbour master of Port Ellison is Marguerite Olsen.',
          'She keeps the tide gauge at the north pier.',
        ],
      },
    ]);
    const scansOnly = await scannedPdf([{ scanned: ['The pilot boat Seraphine was refitted in April.'] }]);
    const typed = minimalPdf(['The lighthouse keeper of Cape Varne is Tomas Brandt.']);
    await putMany(client, bucket, [
      { key: 'on/handbook.pdf', body: handbook },
      { key: 'on/lighthouse.pdf', body: typed },
      { key: 'off/pilot-boat.pdf', body: scansOnly },
      { key: 'off/lighthouse.pdf', body: typed },
      {
        key: 'long/soundings.pdf',
        body: await scannedPdf(
          Array.from({ length: LONG_SCAN_PAGES }, (_, i) => ({ scanned: denseLines(i + 1) })),
        ),
      },
    ]);
  }, 120_000);

  afterAll(async () => {
    client?.destroy();
    await app?.close();
  });

  it('reads the scanned page by OCR and answers a question only it holds, citing that file and page', async () => {
    const { token, accountId } = await newAccount(app);
    const jobId = await startIndex(app, token, {
      docSetName: 'harbour',
      credentials: s3Credentials(bucket, 'on/'),
    });
    await waitFor(app, token, 'harbour', undefined, 300_000);
    const docs = await documents(app, accountId, 'harbour');
    expect(docs.map((d) => [d.file_name, d.status, d.page_count, d.error])).toEqual([
      ['handbook.pdf', 'COMPLETE', 2, null],
      ['lighthouse.pdf', 'COMPLETE', 1, null],
    ]);
    expect((await runRow(app, jobId)).options).toMatchObject({ ocr: true });

    const res = await app.client.post(
      ASK,
      { question: 'Who is the harbour master of Port Ellison?', docSetNames: ['harbour'] },
      { token },
    );
    expect(res.status).toBe(200);
    expect(norm(res.body.answer)).toContain('marguerite olsen');
    expect(res.body.citations[0]).toMatchObject({
      fileName: 'handbook.pdf',
      pageNumber: '2',
      sourceType: 'S3',
      sourceMetadata: { sourceId: expect.stringContaining('on/handbook.pdf') },
    });
    expectMarkersResolve(res.body.answer, res.body.citations);
  }, 400_000);

  it('with indexOptions.ocr false, ends the PDF of scans ERROR with the readable reason and completes the rest', async () => {
    const { token, accountId } = await newAccount(app);
    const jobId = await startIndex(app, token, {
      docSetName: 'no-ocr',
      credentials: s3Credentials(bucket, 'off/'),
      indexOptions: { ocr: false },
    });
    const p = await waitFor(app, token, 'no-ocr', undefined, 300_000);
    expect(p).toMatchObject({ completedCount: 1, errorCount: 1 });
    const docs = await documents(app, accountId, 'no-ocr');
    expect(docs.map((d) => [d.file_name, d.status, d.error])).toEqual([
      ['lighthouse.pdf', 'COMPLETE', null],
      ['pilot-boat.pdf', 'ERROR', OCR_OFF_REASON],
    ]);
    const run = await runRow(app, jobId);
    expect(run.options).toMatchObject({ ocr: false });
    expect(run.status).toBe('COMPLETED');
  }, 400_000);

  it('refuses an indexOptions.ocr that is not a boolean (400, nothing started)', async () => {
    const { token } = await newAccount(app);
    const res = await app.client.post(
      paths.index,
      { docSetName: 'bad', credentials: s3Credentials(bucket, 'on/'), indexOptions: { ocr: 'yes' } },
      { token },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', field: 'indexOptions.ocr' });
    const db = await dbOf(app);
    try {
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM index_runs WHERE docset_name = 'bad'`);
      expect(rows[0].n).toBe(0);
    } finally {
      await db.end();
    }
  });

  it("names the page OCR is reading in the activity's heartbeat, and keeps every page's number", async () => {
    const { token, accountId } = await newAccount(app);
    await startIndex(app, token, { docSetName: 'soundings', credentials: s3Credentials(bucket, 'long/') });
    const temporal = temporalOf(app);
    const seen = new Set<string>();
    const deadline = Date.now() + 800_000;
    for (;;) {
      const [doc] = await documents(app, accountId, 'soundings');
      if (doc && (doc.status === 'COMPLETE' || doc.status === 'ERROR')) break;
      if (Date.now() > deadline) throw new Error('soundings.pdf was not indexed in time');
      if (doc) {
        const d = await temporal.workflow
          .getHandle(documentWorkflowId(doc.id))
          .describe()
          .catch(() => null);
        for (const a of d?.raw.pendingActivities ?? []) {
          const payload = a.heartbeatDetails?.payloads?.[0];
          if (payload) seen.add(String(defaultPayloadConverter.fromPayload(payload)));
        }
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    const ocrLines = [...seen].filter((s) => s.startsWith('OCR: '));
    expect(ocrLines.length).toBeGreaterThan(0);
    for (const line of ocrLines)
      expect(line).toMatch(
        new RegExp(`^OCR: reading page \\d+ \\(\\d+ of ${LONG_SCAN_PAGES} pages without text\\)$`),
      );

    const [doc] = await documents(app, accountId, 'soundings');
    expect([doc.status, doc.page_count]).toEqual(['COMPLETE', LONG_SCAN_PAGES]);
    const db = await dbOf(app);
    try {
      const { rows } = await db.query(
        'SELECT page_number, text FROM document_pages WHERE document_id = $1 ORDER BY page_number',
        [doc.id],
      );
      expect(rows.map((r) => r.page_number)).toEqual(
        Array.from({ length: LONG_SCAN_PAGES }, (_, i) => i + 1),
      );
      // buoy numbers are unique to their page (page * 100 + line): the text read went back to its own page
      for (const r of rows) {
        const buoys = [...(r.text as string).matchAll(/buoy (\d+)/g)].map((m) =>
          Math.floor(Number(m[1]) / 100),
        );
        expect(buoys.length).toBeGreaterThan(20);
        expect(buoys.filter((page) => page === r.page_number).length).toBeGreaterThan(20);
      }
    } finally {
      await db.end();
    }
  }, 900_000);
});
