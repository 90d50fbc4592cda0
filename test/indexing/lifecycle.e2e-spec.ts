import * as fs from 'node:fs';
import * as path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import type { TestApp } from '../support/app';
import { minimalPdf } from '../support/pdf';
import {
  createBucket,
  deleteObject,
  documents,
  indexAndWait,
  newAccount,
  paths,
  progress,
  putMany,
  putObject,
  runRow,
  s3,
  s3Credentials,
  searchIndexOf,
  startIndexingApp,
  temporalOf,
} from './support';

const FIXTURES = path.resolve(__dirname, '../fixtures/indexing');

/**
 * A small docset through its whole life on the real engines (S3 server, Temporal, Postgres,
 * Elasticsearch): every supported file type, re-runs that skip, re-index and remove by etag,
 * a corrupt file that ends ERROR and a retry that fixes it, docset existence, deletion.
 */
describe('indexing lifecycle (S3 -> Temporal -> Postgres + Elasticsearch)', () => {
  let app: TestApp;
  let client: S3Client;
  let bucket: string;
  let token: string;
  let accountId: number;
  const docSetName = 'handbooks';
  const prefix = 'team/';
  const creds = () => s3Credentials(bucket, prefix);

  beforeAll(async () => {
    app = await startIndexingApp();
    client = s3();
    bucket = await createBucket(client);
    ({ token, accountId } = await newAccount(app));
    await putMany(client, bucket, [
      {
        key: `${prefix}cranes.pdf`,
        body: minimalPdf(['Harbour cranes lift containers.', 'Cranes need wind limits.']),
      },
      {
        key: `${prefix}travel-policy.docx`,
        body: fs.readFileSync(path.join(FIXTURES, 'travel-policy.docx')),
      },
      { key: `${prefix}notes.txt`, body: 'Page one of the notes.\fPage two talks about tide tables.' },
      { key: `${prefix}guide.md`, body: '# Guide\n\nThe on-call rotation changes on Mondays.' },
      { key: `${prefix}rates.csv`, body: 'city,rate\nOslo,120\nLyon,95\n' },
      {
        key: `${prefix}ops.html`,
        body: '<html><head><title>Ops</title></head><body><p>Restart the pump &amp; log it.</p></body></html>',
      },
      { key: `${prefix}archive.zip`, body: 'PK not indexed' },
      { key: `elsewhere/outside.txt`, body: 'outside the prefix' },
    ]);
  });
  afterAll(async () => {
    client?.destroy();
    await app?.close();
  });

  const chunksOf = async () => (await searchIndexOf(app).stats(accountId)).chunks;

  it('indexes every supported file type into one docset', async () => {
    const summaryBefore = await app.client.get(paths.summary, { token });
    expect(summaryBefore.body.docSets).toEqual([]);

    const jobId = await indexAndWait(app, token, { docSetName, credentials: creds(), summaryModel: 'local' });
    const docs = await documents(app, accountId, docSetName);
    expect(docs.map((d) => [d.file_name, d.status])).toEqual([
      ['cranes.pdf', 'COMPLETE'],
      ['guide.md', 'COMPLETE'],
      ['notes.txt', 'COMPLETE'],
      ['ops.html', 'COMPLETE'],
      ['rates.csv', 'COMPLETE'],
      ['travel-policy.docx', 'COMPLETE'],
    ]);
    expect(docs.find((d) => d.file_name === 'cranes.pdf')).toMatchObject({
      page_count: 2,
      source_id: `s3://${bucket}/${prefix}cranes.pdf`,
    });
    expect(docs.find((d) => d.file_name === 'notes.txt')?.page_count).toBe(2);
    expect(docs.find((d) => d.file_name === 'travel-policy.docx')?.summary).toContain('per diem');
    expect(await chunksOf()).toBe(docs.reduce((a, d) => a + (d.chunk_count ?? 0), 0));

    const run = await runRow(app, jobId);
    expect(run.status).toBe('COMPLETED');
    expect(run.counters).toMatchObject({
      listed: 6,
      new: 6,
      changed: 0,
      unchanged: 0,
      removed: 0,
      completed: 6,
      failed: 0,
    });

    expect(await progress(app, token, docSetName)).toEqual({
      pendingCount: 0,
      indexingCount: 0,
      completedCount: 6,
      errorCount: 0,
      isIndexing: false,
    });
    const summary = await app.client.get(paths.summary, { token });
    expect(summary.status).toBe(200);
    expect(summary.body.docSets).toEqual([
      expect.objectContaining({
        docSetName,
        exists: true,
        documentCount: 6,
        completedCount: 6,
        sourceTypes: ['S3'],
      }),
    ]);
    expect(summary.body.docSets[0].lastRun).toMatchObject({ jobId, status: 'COMPLETED', kind: 'sync' });
  });

  it('finds the chunks by page through the search port', async () => {
    const hits = await searchIndexOf(app).search({
      accountId: accountId,
      docSetNames: [docSetName],
      text: 'tide tables',
      limit: 10,
      minimumSimilarityScore: -1,
      mode: 'bm25',
    });
    const notes = hits.find((h) => h.chunk.fileName === 'notes.txt');
    expect(notes?.chunk).toMatchObject({ pageNumber: '2', sourceType: 'S3', docSetName });
  });

  it('a second run with nothing changed indexes nothing (async: false waits and reports counts)', async () => {
    const before = await documents(app, accountId, docSetName);
    const res = await app.client.post(
      paths.index,
      { docSetName, credentials: creds(), async: false },
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ docSetName, status: 'COMPLETED', jobId: expect.any(String) });
    expect(res.body.counts).toMatchObject({
      listed: 6,
      new: 0,
      changed: 0,
      unchanged: 6,
      removed: 0,
      completed: 0,
    });
    expect(await documents(app, accountId, docSetName)).toEqual(before);
  });

  it('re-indexes a changed file and removes a file that left the source', async () => {
    const before = await documents(app, accountId, docSetName);
    const chunksBefore = await chunksOf();
    await putObject(
      client,
      bucket,
      `${prefix}cranes.pdf`,
      minimalPdf(['Cranes v2.', 'New wind limits.', 'Third page.']),
    );
    await deleteObject(client, bucket, `${prefix}rates.csv`);
    const res = await app.client.post(
      paths.index,
      { docSetName, credentials: creds(), async: false },
      { token },
    );
    expect(res.body.counts).toMatchObject({
      listed: 5,
      new: 0,
      changed: 1,
      unchanged: 4,
      removed: 1,
      completed: 1,
    });
    const after = await documents(app, accountId, docSetName);
    expect(after.map((d) => d.file_name)).not.toContain('rates.csv');
    const cranes = after.find((d) => d.file_name === 'cranes.pdf');
    expect(cranes).toMatchObject({
      status: 'COMPLETE',
      page_count: 3,
      id: before.find((d) => d.file_name === 'cranes.pdf')?.id,
    });
    const removedChunks = before.find((d) => d.file_name === 'rates.csv')?.chunk_count ?? 0;
    const oldCranes = before.find((d) => d.file_name === 'cranes.pdf')?.chunk_count ?? 0;
    expect(await chunksOf()).toBe(chunksBefore - removedChunks - oldCranes + (cranes?.chunk_count ?? 0));
    expect(await chunksOf()).toBe(after.reduce((a, d) => a + (d.chunk_count ?? 0), 0));
  });

  it('a corrupt PDF ends ERROR with a reason; after replacing it, retry makes it COMPLETE', async () => {
    await putObject(client, bucket, `${prefix}broken.pdf`, Buffer.from('%PDF-1.7\nthis is not really a pdf'));
    await putObject(
      client,
      bucket,
      `${prefix}locked.pdf`,
      fs.readFileSync(path.join(FIXTURES, 'encrypted.pdf')),
    );
    await indexAndWait(app, token, { docSetName, credentials: creds() });
    const docs = await documents(app, accountId, docSetName);
    const broken = docs.find((d) => d.file_name === 'broken.pdf');
    const locked = docs.find((d) => d.file_name === 'locked.pdf');
    expect(broken).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/PDF could not be read/) });
    expect(locked).toMatchObject({ status: 'ERROR', error: 'The PDF is encrypted (password-protected)' });
    expect((await progress(app, token, docSetName)).errorCount).toBe(2);
    // Operators find the failed document in Temporal, with the same reason.
    const failed = await temporalOf(app).workflow.getHandle(`document-index/${locked!.id}`).describe();
    expect(failed.status.name).toBe('FAILED');
    await expect(
      temporalOf(app).workflow.getHandle(`document-index/${locked!.id}`).result(),
    ).rejects.toMatchObject({
      cause: { message: 'The PDF is encrypted (password-protected)', type: 'DocumentIndexingFailed' },
    });

    // Not in ERROR -> 409; unknown, malformed or another account's id -> 404.
    const complete = docs.find((d) => d.status === 'COMPLETE');
    expect((await app.client.post(paths.retry(complete!.id), undefined, { token })).status).toBe(409);
    expect(
      (await app.client.post(paths.retry('9d1c8b5e-1f7e-4a55-9a43-3b0f3f0d2c11'), undefined, { token }))
        .status,
    ).toBe(404);
    expect((await app.client.post(paths.retry('not-a-uuid'), undefined, { token })).status).toBe(404);
    const other = await newAccount(app);
    expect((await app.client.post(paths.retry(broken!.id), undefined, { token: other.token })).status).toBe(
      404,
    );

    await putObject(client, bucket, `${prefix}broken.pdf`, minimalPdf(['Fixed now.']));
    const res = await app.client.post(paths.retry(broken!.id), undefined, { token });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ docSetName, documentId: broken!.id, jobId: expect.any(String) });
    await new Promise((r) => setTimeout(r, 100));
    const p = await progress(app, token, docSetName);
    expect(p.errorCount + p.pendingCount + p.indexingCount + p.completedCount).toBe(docs.length);
    const { waitFor } = await import('./support');
    await waitFor(app, token, docSetName);
    const fixed = (await documents(app, accountId, docSetName)).find((d) => d.id === broken!.id);
    expect(fixed).toMatchObject({ status: 'COMPLETE', error: null, page_count: 1 });
    expect((await runRow(app, res.body.jobId)).status).toBe('COMPLETED');
  });

  it('deleting the docset removes documents, pages and chunks; the docset disappears', async () => {
    const other = await newAccount(app);
    const foreign = await app.client.delete(
      paths.docsets,
      { docSetNames: [docSetName] },
      { token: other.token },
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body.errorCode).toBe('FORBIDDEN');
    expect((await app.client.delete(paths.docsets, { docSetNames: [] }, { token })).status).toBe(400);
    expect(
      (await app.client.delete(paths.docsets, { docSetNames: [docSetName, 'nope'] }, { token })).status,
    ).toBe(403);

    const res = await app.client.delete(paths.docsets, { docSetNames: [docSetName] }, { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ docSetNames: [docSetName], deletedDocumentCount: 7 });
    expect(await documents(app, accountId, docSetName)).toEqual([]);
    expect(await chunksOf()).toBe(0);
    expect((await app.client.get(paths.summary, { token })).body.docSets).toEqual([]);
    expect(await progress(app, token, docSetName)).toMatchObject({ completedCount: 0, isIndexing: false });
  });
});
