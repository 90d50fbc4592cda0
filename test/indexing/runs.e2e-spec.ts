import * as fs from 'node:fs';
import * as path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { docsetWorkflowId, progressQuery } from '@docqa/workflow-contract';
import { startWorker } from '../../apps/worker/src/main';
import type { TestApp } from '../support/app';
import { minimalPdf } from '../support/pdf';
import { spawnWorker } from '../support/worker-process';
import {
  closedStatus,
  CORPUS_DIR,
  createBucket,
  documents,
  indexAndWait,
  newAccount,
  paths,
  progress,
  putMany,
  runRow,
  s3,
  S3_KEYS,
  s3Credentials,
  searchIndexOf,
  startIndex,
  startIndexingApp,
  temporalOf,
  waitFor,
} from './support';

const BIG = [
  'R-intro.pdf',
  'mnesia-4.21.3.pdf',
  'mpman.pdf',
  'reference.pdf',
  'reportlab-userguide.pdf',
  'siunitx.pdf',
];

/** Copies of the larger corpus PDFs under distinct names, so each document takes a moment to index. */
function bigPdfs(n: number, prefix: string) {
  return Array.from({ length: n }, (_, i) => ({
    key: `${prefix}${String(i).padStart(2, '0')}-${BIG[i % BIG.length]}`,
    body: fs.readFileSync(path.join(CORPUS_DIR, BIG[i % BIG.length])),
  }));
}

/** Every payload of a history as text (payload bytes decoded), to look for leaked values. */
function historyText(value: unknown): string {
  const parts: string[] = [];
  const walk = (v: unknown) => {
    if (v instanceof Uint8Array) parts.push(Buffer.from(v).toString('utf8'));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    else if (typeof v === 'string') parts.push(v);
  };
  walk(value);
  return parts.join('\n');
}

/** Chunks in the index equal the chunk counts the COMPLETE documents report (nothing duplicated or left over). */
async function expectChunksConsistent(app: TestApp, accountId: number, docSetName: string) {
  const docs = await documents(app, accountId, docSetName);
  const expected = docs.filter((d) => d.status === 'COMPLETE').reduce((a, d) => a + (d.chunk_count ?? 0), 0);
  expect((await searchIndexOf(app).stats(accountId)).chunks).toBe(expected);
}

describe('indexing runs: conflicts, cancellation, credentials, authorisation', () => {
  let app: TestApp;
  let client: S3Client;
  let bucket: string;

  beforeAll(async () => {
    app = await startIndexingApp({ env: { INDEXING_CONCURRENCY: '2' } });
    client = s3();
    bucket = await createBucket(client);
  });
  afterAll(async () => {
    client?.destroy();
    await app?.close();
  });

  it('refuses a second run of an open docset (409), cancels mid-run, and a later run finishes the rest', async () => {
    const { token, accountId } = await newAccount(app);
    const docSetName = 'manuals';
    await putMany(client, bucket, bigPdfs(6, 'cancel/'), 4);
    const body = { docSetName, credentials: s3Credentials(bucket, 'cancel/') };
    const jobId = await startIndex(app, token, body);

    const second = await app.client.post(paths.index, body, { token });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ errorCode: 'INDEXING_IN_PROGRESS' });

    await waitFor(app, token, docSetName, (p) => p.completedCount >= 1 && p.isIndexing, 180_000, 100);
    const handle = temporalOf(app).workflow.getHandle(docsetWorkflowId(accountId, docSetName));
    const live = await handle.query(progressQuery);
    expect(live).toMatchObject({ runId: jobId, phase: 'indexing', windowSize: 2 });
    expect(live.inFlight).toBeLessThanOrEqual(2);
    expect(live.counters.listed).toBe(6);

    const cancel = await app.client.post(paths.cancel(docSetName), undefined, { token });
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ docSetName, jobId });
    const after = await waitFor(app, token, docSetName);
    expect(after.indexingCount).toBe(0);

    // No child was started after the cancellation request reached the run.
    const { events } = await handle.fetchHistory();
    const cancelAt = events!.findIndex((e) => e.workflowExecutionCancelRequestedEventAttributes);
    expect(cancelAt).toBeGreaterThan(0);
    expect(
      events!.slice(cancelAt).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes),
    ).toEqual([]);
    expect(await closedStatus(handle)).toBe('CANCELLED');

    const run = await runRow(app, jobId);
    expect(run.status).toBe('CANCELLED');
    const docs = await documents(app, accountId, docSetName);
    const complete = docs.filter((d) => d.status === 'COMPLETE');
    const cancelled = docs.filter((d) => d.status === 'CANCELLED');
    expect(complete.length).toBeGreaterThanOrEqual(1);
    expect(cancelled.length).toBeGreaterThanOrEqual(1);
    expect(complete.length + cancelled.length).toBe(6);
    expect(cancelled.every((d) => d.chunk_count === null)).toBe(true);
    expect(after).toMatchObject({
      completedCount: complete.length,
      pendingCount: cancelled.length,
      isIndexing: false,
    });
    await expectChunksConsistent(app, accountId, docSetName);
    // No child is left running, and nothing moves once cancelled.
    for (const d of docs) {
      const child = temporalOf(app).workflow.getHandle(`document-index/${d.id}`);
      const status = await child.describe().then(
        (x) => x.status.name,
        () => 'NEVER_STARTED',
      );
      expect({ file: d.file_name, status }).not.toEqual({ file: d.file_name, status: 'RUNNING' });
    }
    await new Promise((r) => setTimeout(r, 1500));
    expect(await progress(app, token, docSetName)).toEqual(after);

    expect((await app.client.post(paths.cancel(docSetName), undefined, { token })).status).toBe(409);

    const rest = await app.client.post(paths.index, { ...body, async: false }, { token });
    expect(rest.body).toMatchObject({ status: 'COMPLETED' });
    expect(rest.body.counts).toMatchObject({
      new: 0,
      unchanged: complete.length,
      completed: cancelled.length,
      failed: 0,
    });
    const final = await documents(app, accountId, docSetName);
    expect(final.every((d) => d.status === 'COMPLETE')).toBe(true);
    await expectChunksConsistent(app, accountId, docSetName);
  }, 300_000);

  it('never echoes, logs or puts source credentials in workflow payloads', async () => {
    const { token, accountId } = await newAccount(app);
    const docSetName = 'secrets';
    await putMany(client, bucket, [{ key: 'secret/a.pdf', body: minimalPdf(['Quarterly figures.']) }]);
    const secret = S3_KEYS.secretAccessKey;
    const res = await app.client.post(
      paths.index,
      { docSetName, credentials: s3Credentials(bucket, 'secret/'), async: false },
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(secret);
    const summary = await app.client.get(paths.summary, { token });
    expect(summary.text).not.toContain(secret);
    expect(app.logs()).not.toContain(secret);

    const run = await runRow(app, res.body.jobId);
    expect(run.credentials_enc).toMatch(/^v1\./);
    expect(run.credentials_enc).not.toContain(secret);
    expect(run.credentials_enc).not.toContain(S3_KEYS.accessKeyId);

    const handle = temporalOf(app).workflow.getHandle(docsetWorkflowId(accountId, docSetName));
    const text = historyText(await handle.fetchHistory());
    expect(text).toContain(res.body.jobId);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(S3_KEYS.accessKeyId);
    const [doc] = await documents(app, accountId, docSetName);
    const child = historyText(
      await temporalOf(app).workflow.getHandle(`document-index/${doc.id}`).fetchHistory(),
    );
    expect(child).toContain(doc.id);
    expect(child).not.toContain(secret);
    expect(child).not.toContain('Quarterly figures');
  });

  it('validates requests and refuses endpoints chosen by the caller', async () => {
    const { token } = await newAccount(app);
    const post = (body: unknown) => app.client.post(paths.index, body, { token });
    const creds = s3Credentials(bucket, 'x/');
    const cases: Array<[unknown, string]> = [
      [
        { docSetName: 'a', credentials: { ...creds, endpoint: 'http://169.254.169.254/' } },
        'credentials.endpoint',
      ],
      [{ docSetName: 'a', credentials: { ...creds, host: 'evil.example' } }, 'credentials.host'],
      [{ docSetName: '', credentials: creds }, 'docSetName'],
      [{ docSetName: 'bad\u0007name', credentials: creds }, 'docSetName'],
      [{ docSetName: ' padded', credentials: creds }, 'docSetName'],
      [{ docSetName: 'x'.repeat(201), credentials: creds }, 'docSetName'],
      [{ credentials: creds }, 'docSetName'],
      [{ docSetName: 'a', sourceType: 'FTP', credentials: creds }, 'sourceType'],
      [{ docSetName: 'a', credentials: 'nope' }, 'credentials'],
      [
        { docSetName: 'a', credentials: creds, indexOptions: { targetIndexTypes: ['exe'] } },
        'indexOptions.targetIndexTypes',
      ],
      [
        { docSetName: 'a', credentials: creds, indexOptions: { forceReindex: 'yes' } },
        'indexOptions.forceReindex',
      ],
      [{ docSetName: 'a', credentials: creds, async: 'no' }, 'async'],
      [{ docSetName: 'a', credentials: creds, summaryModel: 'has spaces' }, 'summaryModel'],
      [{ docSetName: 'a', credentials: { accessKeyId: 'k', secretAccessKey: 's' } }, 'credentials.bucket'],
      [{ docSetName: 'a', credentials: {} }, 'credentials'],
      [{ docSetName: 'a', credentials: creds, extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect({ body, status: res.status, errorCode: res.body.errorCode, field: res.body.field }).toEqual({
        body,
        status: 400,
        errorCode: 'VALIDATION_ERROR',
        field,
      });
    }
    expect((await app.client.post(paths.progress('x'), undefined, { token })).status).toBe(404);
    expect((await app.client.get(paths.progress('bad\u0001'), { token })).status).toBe(400);
  });

  it('needs a token; read-only tokens may read progress but not index, cancel, retry or delete', async () => {
    const { token } = await newAccount(app);
    expect((await app.client.post(paths.index, { docSetName: 'a' })).status).toBe(401);
    expect((await app.client.get(paths.progress('a'))).status).toBe(401);
    expect((await app.client.get(paths.summary)).status).toBe(401);
    const created = await app.client.post(
      '/api/v1/api_tokens',
      { name: 'reader', read_only: true },
      { token },
    );
    expect(created.status).toBe(200);
    const reader = created.body.token as string;
    const body = { docSetName: 'a', credentials: s3Credentials(bucket, 'x/') };
    for (const res of [
      await app.client.post(paths.index, body, { token: reader }),
      await app.client.post(paths.cancel('a'), undefined, { token: reader }),
      await app.client.post(paths.retry('9d1c8b5e-1f7e-4a55-9a43-3b0f3f0d2c11'), undefined, {
        token: reader,
      }),
      await app.client.delete(paths.docsets, { docSetNames: ['a'] }, { token: reader }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.errorCode).toBe('FORBIDDEN');
    }
    expect((await app.client.get(paths.progress('a'), { token: reader })).status).toBe(200);
    expect((await app.client.get(paths.summary, { token: reader })).status).toBe(200);
  });

  it('reports an unreachable source: check-source 422, a run FAILED with the reason', async () => {
    const { token } = await newAccount(app);
    const creds = { ...S3_KEYS, bucket: 'no-such-bucket-docqa' };
    const check = await app.client.post(
      paths.checkSource,
      { docSetName: 'gone', credentials: creds },
      { token },
    );
    expect(check.status).toBe(422);
    expect(check.body.errorCode).toBe('SOURCE_UNREACHABLE');
    expect(check.text).not.toContain(S3_KEYS.secretAccessKey);
    const res = await app.client.post(
      paths.index,
      { docSetName: 'gone', credentials: creds, async: false },
      { token },
    );
    expect(res.body).toMatchObject({
      status: 'FAILED',
      error: expect.stringContaining('no-such-bucket-docqa'),
    });
    expect(await progress(app, token, 'gone')).toMatchObject({ isIndexing: false });
  });

  it('account deletion cancels runs and removes documents and chunks', async () => {
    const { token, accountId } = await newAccount(app);
    await putMany(client, bucket, [{ key: 'acct/a.pdf', body: minimalPdf(['Delete me with the account.']) }]);
    await indexAndWait(app, token, { docSetName: 'mine', credentials: s3Credentials(bucket, 'acct/') });
    expect((await searchIndexOf(app).stats(accountId)).chunks).toBeGreaterThan(0);
    const res = await app.client.delete('/api/v1/me', undefined, { token });
    expect(res.status).toBe(200);
    expect((await searchIndexOf(app).stats(accountId)).chunks).toBe(0);
    expect(await documents(app, accountId, 'mine')).toEqual([]);
  });
});

describe('a worker killed mid-run and replaced', () => {
  let app: TestApp;
  let client: S3Client;

  beforeAll(async () => {
    // The API alone: the workers of this test run outside it.
    app = await startIndexingApp({ worker: false, env: { INDEXING_CONCURRENCY: '2' } });
    client = s3();
  });
  afterAll(async () => {
    client?.destroy();
    await app?.close();
  });

  it('completes the run on the new worker with right counts and no duplicated chunk', async () => {
    const bucket = await createBucket(client);
    const { token, accountId } = await newAccount(app);
    const docSetName = 'survivor';
    await putMany(client, bucket, bigPdfs(4, 'kill/'), 4);

    const first = spawnWorker(app.cfg, 'worker-a');
    await first.ready;
    const jobId = await startIndex(app, token, { docSetName, credentials: s3Credentials(bucket, 'kill/') });
    const atKill = await waitFor(
      app,
      token,
      docSetName,
      (p) => p.completedCount >= 1 && p.indexingCount >= 1,
      180_000,
      100,
    );
    await first.kill();
    expect(atKill.completedCount).toBeLessThan(4);

    const second = await startWorker(app.cfg);
    try {
      const done = await waitFor(app, token, docSetName, undefined, 240_000);
      expect(done).toMatchObject({ completedCount: 4, errorCount: 0, pendingCount: 0, indexingCount: 0 });
    } finally {
      await second.close();
    }
    const run = await runRow(app, jobId);
    expect(run.status).toBe('COMPLETED');
    expect(run.counters).toMatchObject({ listed: 4, new: 4, completed: 4, failed: 0, cancelled: 0 });
    const docs = await documents(app, accountId, docSetName);
    expect(docs.every((d) => d.status === 'COMPLETE' && (d.chunk_count ?? 0) > 0)).toBe(true);
    await expectChunksConsistent(app, accountId, docSetName);
  }, 420_000);
});
