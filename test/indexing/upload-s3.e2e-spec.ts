import { createHash } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { TestApp } from '../support/app';
import { minimalPdf } from '../support/pdf';
import {
  createBucket,
  documents,
  newAccount,
  paths,
  runRow,
  s3,
  S3_KEYS,
  startIndexingApp,
  waitFor,
} from './support';
import { filesUnder, upload } from './upload-support';
import * as path from 'node:path';

const GUIDE = minimalPdf(['The ferry to the island leaves at half past eight.']);

/**
 * The production upload store: UPLOAD_S3_BUCKET on the local S3 server (S3_ENDPOINT), reached
 * with the server's own AWS identity (here the environment's keys).
 */
describe('upload: the S3-backed upload store (UPLOAD_S3_BUCKET)', () => {
  let app: TestApp;
  let client: S3Client;
  let bucket: string;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID = S3_KEYS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = S3_KEYS.secretAccessKey;
    client = s3();
    bucket = await createBucket(client, 'uploads');
    app = await startIndexingApp({ env: { UPLOAD_S3_BUCKET: bucket } });
  }, 300_000);
  afterAll(async () => {
    client?.destroy();
    await app?.close();
    process.env.AWS_ACCESS_KEY_ID = saved.id;
    process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
  });

  const keys = async (prefix = '') =>
    ((await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? [])
      .map((c) => c.Key)
      .sort();

  it('stores under the account id, indexes, and deletes with the docset', async () => {
    const a = await newAccount(app);
    const b = await newAccount(app);
    const docset = createHash('sha256').update('ferries').digest('hex');

    const res = await upload(app, a.token, 'ferries', [{ name: 'guide.pdf', data: GUIDE }]);
    expect(res.status).toBe(202);
    expect((await upload(app, b.token, 'ferries', [{ name: 'notes.txt', data: 'B notes' }])).status).toBe(
      202,
    );
    await waitFor(app, a.token, 'ferries');
    await waitFor(app, b.token, 'ferries');
    expect((await runRow(app, res.body.jobId)).status).toBe('COMPLETED');

    expect(await keys()).toEqual([
      `${a.accountId}/${docset}/guide.pdf`,
      `${b.accountId}/${docset}/notes.txt`,
    ]);
    const obj = await client.send(
      new GetObjectCommand({ Bucket: bucket, Key: `${a.accountId}/${docset}/guide.pdf` }),
    );
    expect(Buffer.from(await obj.Body!.transformToByteArray())).toEqual(GUIDE);
    expect((await documents(app, a.accountId, 'ferries')).map((d) => [d.file_name, d.status])).toEqual([
      ['guide.pdf', 'COMPLETE'],
    ]);
    // nothing is kept on local disk but the (empty) staging folder
    expect(filesUnder(path.join(app.dataDir, 'uploads'))).toEqual([]);

    const answer = await app.client.post(
      '/api/v1/document_proxy/ask',
      { question: 'When does the ferry leave?', docSetNames: ['ferries'] },
      { token: a.token },
    );
    expect(answer.body.citations[0]).toMatchObject({ fileName: 'guide.pdf', sourceType: 'UPLOAD' });

    const del = await app.client.delete(paths.docsets, { docSetNames: ['ferries'] }, { token: a.token });
    expect(del.status).toBe(200);
    expect(await keys()).toEqual([`${b.accountId}/${docset}/notes.txt`]);
  });
});

describe('upload: an unreachable upload bucket', () => {
  let app: TestApp;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID = S3_KEYS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = S3_KEYS.secretAccessKey;
    app = await startIndexingApp({ env: { UPLOAD_S3_BUCKET: 'docqa-no-such-bucket' } });
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    process.env.AWS_ACCESS_KEY_ID = saved.id;
    process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
  });

  it('answers 503, closes the run FAILED and leaves the docset free for the next upload', async () => {
    const a = await newAccount(app);
    const res = await upload(app, a.token, 'ferries', [{ name: 'guide.pdf', data: GUIDE }]);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      message: 'The upload store is unavailable; try again later',
      errorCode: 'DEPENDENCY_UNAVAILABLE',
    });
    const summary = await app.client.get(paths.summary, { token: a.token });
    expect(summary.body.docSets[0].lastRun).toMatchObject({ status: 'FAILED' });
    expect(summary.body.docSets[0].isIndexing).toBe(false);
    expect(await documents(app, a.accountId, 'ferries')).toEqual([]);
    expect(filesUnder(path.join(app.dataDir, 'uploads'))).toEqual([]);
    // not 409: the failed run does not hold the docset
    expect((await upload(app, a.token, 'ferries', [{ name: 'guide.pdf', data: GUIDE }])).status).toBe(503);
    expect(app.logs()).not.toContain(S3_KEYS.secretAccessKey);
  });
});
